package jinja

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// Chat templates. A template with {% chat role=… %} blocks renders to chat
// messages, one per block run. Its structure is checked here: outside its
// blocks it has no text but whitespace and no output; blocks do not nest
// (an include counts where it stands); a literal role is a role the
// runtime knows, and a role that is not a literal lists the roles it may
// take (allow=[…]), so a value cannot make a message a system message;
// {{ x | image }} stands alone in an output inside a block.

// chatMode is where a node stands.
type chatMode int

const (
	outsideChat chatMode = iota // at the template's output, outside any chat block
	insideChat                  // inside a chat block
	captured                    // in a body whose output is not the template's (macro, set block)
)

type chatChecker struct {
	c        *checker
	hasChat  bool
	outside  ErrorList // text and output outside chat blocks: problems only in a chat template
	problems ErrorList
	open     []string // where the enclosing chat block opened, "file:line"
}

func (c *checker) chat(t *Tree) {
	if !c.mayBeChat(t) {
		return // no chat block and no image filter: nothing to check
	}
	k := &chatChecker{c: c}
	k.body(t.Source, t.Root, outsideChat)
	c.prog.Chat = k.hasChat
	if k.hasChat {
		k.problems = append(k.problems, k.outside...)
	}
	slices.SortStableFunc(k.problems, func(a, b *Error) int {
		if a.File != b.File {
			return 0
		}
		return int(a.Pos - b.Pos)
	})
	c.errs = append(c.errs, k.problems...)
}

// mayBeChat reports whether the template or a file it includes holds a
// chat block or an image filter.
func (c *checker) mayBeChat(t *Tree) bool {
	found := false
	look := func(n Node) bool {
		switch x := n.(type) {
		case *ChatNode:
			found = true
		case *FilterExpr:
			found = found || x.Name == "image"
		}
		return !found
	}
	InspectAll(t.Root, look)
	for _, tr := range c.prog.Trees {
		if !found {
			InspectAll(tr.Root, look)
		}
	}
	return found
}

func (k *chatChecker) at(src *Source, e *Error) *Error {
	e.File = src.Name
	e.Line, e.Col = src.Position(e.Pos)
	return e
}

func (k *chatChecker) body(src *Source, nodes []Node, mode chatMode) {
	for _, n := range nodes {
		k.node(src, n, mode)
	}
}

func (k *chatChecker) node(src *Source, n Node, mode chatMode) {
	switch n := n.(type) {
	case *TextNode:
		if mode == outsideChat {
			if off := strings.IndexFunc(n.Text, func(r rune) bool { return !unicode.IsSpace(r) }); off >= 0 {
				k.outside = append(k.outside, k.at(src, errTextOutsideChat(n.Pos+Pos(off))))
			}
		}
	case *OutputNode:
		if f, ok := n.X.(*FilterExpr); ok && f.Name == "image" {
			if len(f.Args)+len(f.Kwargs) > 0 || f.DynArgs != nil || f.DynKwargs != nil {
				k.problems = append(k.problems, k.at(src, errImageArgs(f.Pos)))
			}
			k.images(src, f.X)
			if mode != insideChat {
				k.problems = append(k.problems, k.at(src, errImageOutsideChat(n.Pos)))
			}
			return
		}
		k.images(src, n.X)
		if mode == outsideChat {
			k.outside = append(k.outside, k.at(src, errOutputOutsideChat(n.Pos)))
		}
	case *ChatNode:
		k.hasChat = true
		line, _ := src.Position(n.Pos)
		here := fmt.Sprintf("%s:%d", src.Name, line)
		if len(k.open) > 0 {
			k.problems = append(k.problems, k.at(src, errNestedChat(n.Pos, k.open[len(k.open)-1])))
		}
		roles := k.c.cfg.Catalog.ChatRoles
		if c, ok := n.Role.(*ConstExpr); ok {
			if s, isStr := c.Value.(string); !isStr {
				k.problems = append(k.problems, k.at(src, errChatRoleType(c.Pos, c.Value, roles)))
			} else if !slices.Contains(roles, s) {
				k.problems = append(k.problems, k.at(src, errChatRoleUnknown(c.Pos, s, roles)))
			}
			if n.Allow != nil {
				k.problems = append(k.problems, k.at(src, errChatAllowLiteral(n.AllowPos)))
			}
		} else if n.Allow == nil {
			// A role from a value is a role a value chooses: only among
			// those the template lists (the engine checks it at render).
			k.problems = append(k.problems, k.at(src, errChatRoleFromValue(n.Role.Position(), n.Role.String())))
		}
		for _, r := range n.Allow {
			if !slices.Contains(roles, r) {
				k.problems = append(k.problems, k.at(src, errChatRoleUnknown(n.AllowPos, r, roles)))
			}
		}
		k.images(src, n.Role)
		k.open = append(k.open, here)
		k.body(src, n.Body, insideChat)
		k.open = k.open[:len(k.open)-1]
	case *IncludeNode:
		if t := k.c.prog.Trees[n]; t != nil {
			k.body(t.Source, t.Root, mode)
		}
	case *ImportNode, *FromImportNode:
		if t := k.c.prog.Trees[n]; t != nil {
			k.body(t.Source, t.Root, captured)
		}
	case *MacroNode:
		k.exprs(src, Children(n))
		k.body(src, n.Body, captured)
	case *CallBlockNode:
		k.images(src, n.Call)
		k.body(src, n.Body, captured)
	case *SetBlockNode:
		k.body(src, n.Body, captured)
	default:
		// Other statements keep the mode: their bodies print where they
		// stand. Their expressions may not hold an image.
		for _, ch := range Children(n) {
			if x, ok := ch.(Expr); ok {
				k.images(src, x)
			} else {
				k.node(src, ch, mode)
			}
		}
	}
}

func (k *chatChecker) exprs(src *Source, nodes []Node) {
	for _, n := range nodes {
		if x, ok := n.(Expr); ok {
			k.images(src, x)
		}
	}
}

// images reports every image filter inside x: there it would have to
// produce a value, and an image is not a value but a part of a message.
func (k *chatChecker) images(src *Source, x Expr) {
	if x == nil {
		return
	}
	Inspect(x, func(n Node) bool {
		if f, ok := n.(*FilterExpr); ok && f.Name == "image" {
			k.problems = append(k.problems, k.at(src, errImageNotAlone(f.Pos)))
		}
		return true
	})
}
