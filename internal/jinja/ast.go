//promptkit:allow-inline the syntax tree prints itself back as Jinja source
package jinja

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// The syntax tree. Node kinds follow Jinja's own (jinja2/nodes.py), so the
// semantics of each can be checked against Jinja's; every node has the
// position where it starts and a String that prints it back as Jinja
// source, so tests compare trees by their text.

// Node is a statement or an expression.
type Node interface {
	Position() Pos
	String() string
	node()
}

// Expr is a node that has a value.
type Expr interface {
	Node
	expr()
}

// Statements.
type (
	// TextNode is template text, printed as it is.
	TextNode struct {
		Pos  Pos
		Text string
	}
	// OutputNode is {{ x }} (or {% print x %}).
	OutputNode struct {
		Pos Pos
		X   Expr
	}
	// IfNode is {% if %}, its {% elif %} branches and {% else %}.
	IfNode struct {
		Pos      Pos
		Branches []*Branch
		Else     []Node // nil without {% else %}
	}
	// Branch is one condition of an IfNode and its body.
	Branch struct {
		Pos  Pos
		Cond Expr
		Body []Node
	}
	// ForNode is {% for target in iter [if cond] [shrink …] [recursive] %}.
	ForNode struct {
		Pos       Pos
		Target    Expr // a NameExpr or a TupleExpr of targets
		Iter      Expr
		Cond      Expr  // the loop filter; nil when there is none
		Mark      *Mark // shrink priority=… drop=… keep=…: its items may be cut; nil when unmarked
		Recursive bool
		Body      []Node
		Else      []Node // nil without {% else %}
	}
	// SetNode is {% set target = value %}.
	SetNode struct {
		Pos    Pos
		Target Expr // a NameExpr, a TupleExpr of targets or a namespace AttrExpr
		Value  Expr
	}
	// SetBlockNode is {% set target [| filters] %}…{% endset %}.
	SetBlockNode struct {
		Pos     Pos
		Target  Expr
		Filters []*FilterExpr // applied in order to the body; X is nil
		Body    []Node
	}
	// WithNode is {% with a = x, b = y %}…{% endwith %}.
	WithNode struct {
		Pos     Pos
		Targets []Expr
		Values  []Expr
		Body    []Node
	}
	// IncludeNode is {% include "path" [ignore missing] [with|without context] %}.
	IncludeNode struct {
		Pos           Pos
		Template      Expr
		IgnoreMissing bool
		WithContext   bool
	}
	// ImportNode is {% import "path" as name [with context] %}.
	ImportNode struct {
		Pos         Pos
		Template    Expr
		Target      string
		WithContext bool
	}
	// FromImportNode is {% from "path" import a [as b], … [with context] %}.
	FromImportNode struct {
		Pos         Pos
		Template    Expr
		Names       []ImportName
		WithContext bool
	}
	// ExtendsNode is {% extends "path" %}.
	ExtendsNode struct {
		Pos      Pos
		Template Expr
	}
	// BlockNode is {% block name [scoped] [required] %}…{% endblock %}.
	BlockNode struct {
		Pos      Pos
		Name     string
		Scoped   bool
		Required bool
		Body     []Node
	}
	// MacroNode is {% macro name(params) %}…{% endmacro %}.
	MacroNode struct {
		Pos    Pos
		Name   string
		Params []*Param
		Body   []Node
	}
	// CallBlockNode is {% call[(params)] macro(args) %}…{% endcall %}: the
	// body is the macro's caller().
	CallBlockNode struct {
		Pos    Pos
		Call   *CallExpr
		Params []*Param
		Body   []Node
	}
	// FilterBlockNode is {% filter f(args)|g %}…{% endfilter %}.
	FilterBlockNode struct {
		Pos     Pos
		Filters []*FilterExpr // X is nil: they apply to the body
		Body    []Node
	}
	// AutoescapeNode is {% autoescape x %}…{% endautoescape %}.
	AutoescapeNode struct {
		Pos  Pos
		X    Expr
		Body []Node
	}
	// BreakNode is {% break %}; ContinueNode is {% continue %} (Jinja's
	// loopcontrols extension).
	BreakNode    struct{ Pos Pos }
	ContinueNode struct{ Pos Pos }
	// ChatNode is promptkit's {% chat role=x %}…{% endchat %}: one chat
	// message. A role that is not a literal names the roles it may take:
	// {% chat role=turn.role allow=["user", "assistant"] %}.
	ChatNode struct {
		Pos      Pos
		Role     Expr
		Allow    []string // the roles allow= lists; nil without allow=
		AllowPos Pos      // where allow= is
		Mark     *Mark    // priority=…: the message may be dropped; nil when unmarked
		Body     []Node
	}
	// ShrinkNode is promptkit's {% shrink priority=N %}…{% endshrink %}:
	// a block that a render within a token budget may drop whole.
	ShrinkNode struct {
		Pos  Pos
		Mark *Mark
		Body []Node
	}
	// GenerationNode is {% generation %}…{% endgeneration %}, the marker
	// Hugging Face chat templates put around assistant text; it renders its
	// body.
	GenerationNode struct {
		Pos  Pos
		Body []Node
	}
)

// Mark is a budget mark, promptkit's: what a render within a token
// budget may cut ({% shrink %} blocks, chat messages and loops with
// priority=), and when. Lower priorities are cut first. Without a budget
// a mark changes nothing.
type Mark struct {
	Pos      Pos   // where priority= is
	Priority int64 // lower is cut first
	// A loop's items are cut from one end, Drop ("end" or "start"), and
	// Keep of them never are. Both are zero for a block or a message.
	Drop string
	Keep int64
}

// String prints the mark's keywords, as they follow the tag.
func (m *Mark) String() string {
	s := "priority=" + strconv.FormatInt(m.Priority, 10)
	if m.Drop != "" {
		s += " drop=" + quote(m.Drop) + " keep=" + strconv.FormatInt(m.Keep, 10)
	}
	return s
}

// ImportName is one name of a FromImportNode.
type ImportName struct {
	Pos   Pos
	Name  string
	Alias string // empty when not renamed
}

// Param is one parameter of a macro or call block.
type Param struct {
	Pos     Pos
	Name    string
	Default Expr // nil when the parameter has no default
}

// Expressions.
type (
	// NameExpr is a variable, local or global name.
	NameExpr struct {
		Pos  Pos
		Name string
	}
	// ConstExpr is a literal: string, int64, *big.Int (beyond 64 bits),
	// float64, bool or nil (None).
	ConstExpr struct {
		Pos   Pos
		Value any
	}
	// ListExpr is [a, b].
	ListExpr struct {
		Pos   Pos
		Items []Expr
	}
	// TupleExpr is (a, b) or a, b.
	TupleExpr struct {
		Pos   Pos
		Items []Expr
	}
	// DictExpr is {k: v, …}.
	DictExpr struct {
		Pos    Pos
		Keys   []Expr
		Values []Expr
	}
	// AttrExpr is x.name.
	AttrExpr struct {
		Pos     Pos
		X       Expr
		Name    string
		NamePos Pos // where Name is written: a method's, for messages about it
	}
	// IndexExpr is x[index]; a slice is an index of kind SliceExpr.
	IndexExpr struct {
		Pos   Pos
		X     Expr
		Index Expr
	}
	// SliceExpr is start:stop:step inside brackets; each may be nil.
	SliceExpr struct {
		Pos               Pos
		Start, Stop, Step Expr
	}
	// CallExpr is fn(args, name=value, *dyn, **dynkw).
	CallExpr struct {
		Pos       Pos
		Fn        Expr
		Args      []Expr
		Kwargs    []*Keyword
		DynArgs   Expr
		DynKwargs Expr
	}
	// FilterExpr is x | name(args). X is nil in a filter block or set block.
	FilterExpr struct {
		Pos       Pos
		X         Expr
		Name      string
		NamePos   Pos // where Name is written, for messages about it
		Args      []Expr
		Kwargs    []*Keyword
		DynArgs   Expr
		DynKwargs Expr
	}
	// TestExpr is x is [not] name(args).
	TestExpr struct {
		Pos       Pos
		X         Expr
		Name      string
		NamePos   Pos // where Name is written, for messages about it
		Negated   bool
		Args      []Expr
		Kwargs    []*Keyword
		DynArgs   Expr
		DynKwargs Expr
	}
	// UnaryExpr is not x, -x or +x.
	UnaryExpr struct {
		Pos Pos
		Op  string
		X   Expr
	}
	// BinaryExpr is l op r for and, or, +, -, *, /, //, % and **.
	BinaryExpr struct {
		Pos  Pos
		Op   string
		L, R Expr
	}
	// ConcatExpr is a ~ b ~ c.
	ConcatExpr struct {
		Pos   Pos
		Items []Expr
	}
	// CompareExpr is x op1 y1 op2 y2 …, Python's chained comparison.
	CompareExpr struct {
		Pos Pos
		X   Expr
		Ops []*CompareOp
	}
	// CondExpr is then if test else els; Else may be nil.
	CondExpr struct {
		Pos  Pos
		Test Expr
		Then Expr
		Else Expr
	}
)

// CompareOp is one link of a CompareExpr: ==, !=, <, <=, >, >=, in, notin.
type CompareOp struct {
	Pos Pos
	Op  string
	Y   Expr
}

// Keyword is a keyword argument name=value.
type Keyword struct {
	Pos   Pos
	Name  string
	Value Expr
}

func (n *TextNode) Position() Pos        { return n.Pos }
func (n *OutputNode) Position() Pos      { return n.Pos }
func (n *IfNode) Position() Pos          { return n.Pos }
func (n *Branch) Position() Pos          { return n.Pos }
func (n *ForNode) Position() Pos         { return n.Pos }
func (n *SetNode) Position() Pos         { return n.Pos }
func (n *SetBlockNode) Position() Pos    { return n.Pos }
func (n *WithNode) Position() Pos        { return n.Pos }
func (n *IncludeNode) Position() Pos     { return n.Pos }
func (n *ImportNode) Position() Pos      { return n.Pos }
func (n *FromImportNode) Position() Pos  { return n.Pos }
func (n *ExtendsNode) Position() Pos     { return n.Pos }
func (n *BlockNode) Position() Pos       { return n.Pos }
func (n *MacroNode) Position() Pos       { return n.Pos }
func (n *Param) Position() Pos           { return n.Pos }
func (n *CallBlockNode) Position() Pos   { return n.Pos }
func (n *FilterBlockNode) Position() Pos { return n.Pos }
func (n *AutoescapeNode) Position() Pos  { return n.Pos }
func (n *BreakNode) Position() Pos       { return n.Pos }
func (n *ContinueNode) Position() Pos    { return n.Pos }
func (n *ChatNode) Position() Pos        { return n.Pos }
func (n *GenerationNode) Position() Pos  { return n.Pos }
func (n *ShrinkNode) Position() Pos      { return n.Pos }
func (n *NameExpr) Position() Pos        { return n.Pos }
func (n *ConstExpr) Position() Pos       { return n.Pos }
func (n *ListExpr) Position() Pos        { return n.Pos }
func (n *TupleExpr) Position() Pos       { return n.Pos }
func (n *DictExpr) Position() Pos        { return n.Pos }
func (n *AttrExpr) Position() Pos        { return n.Pos }
func (n *IndexExpr) Position() Pos       { return n.Pos }
func (n *SliceExpr) Position() Pos       { return n.Pos }
func (n *CallExpr) Position() Pos        { return n.Pos }
func (n *FilterExpr) Position() Pos      { return n.Pos }
func (n *TestExpr) Position() Pos        { return n.Pos }
func (n *UnaryExpr) Position() Pos       { return n.Pos }
func (n *BinaryExpr) Position() Pos      { return n.Pos }
func (n *ConcatExpr) Position() Pos      { return n.Pos }
func (n *CompareExpr) Position() Pos     { return n.Pos }
func (n *CompareOp) Position() Pos       { return n.Pos }
func (n *CondExpr) Position() Pos        { return n.Pos }
func (n *Keyword) Position() Pos         { return n.Pos }

func (*TextNode) node()        {}
func (*OutputNode) node()      {}
func (*IfNode) node()          {}
func (*Branch) node()          {}
func (*ForNode) node()         {}
func (*SetNode) node()         {}
func (*SetBlockNode) node()    {}
func (*WithNode) node()        {}
func (*IncludeNode) node()     {}
func (*ImportNode) node()      {}
func (*FromImportNode) node()  {}
func (*ExtendsNode) node()     {}
func (*BlockNode) node()       {}
func (*MacroNode) node()       {}
func (*Param) node()           {}
func (*CallBlockNode) node()   {}
func (*FilterBlockNode) node() {}
func (*AutoescapeNode) node()  {}
func (*BreakNode) node()       {}
func (*ContinueNode) node()    {}
func (*ChatNode) node()        {}
func (*GenerationNode) node()  {}
func (*ShrinkNode) node()      {}
func (*NameExpr) node()        {}
func (*ConstExpr) node()       {}
func (*ListExpr) node()        {}
func (*TupleExpr) node()       {}
func (*DictExpr) node()        {}
func (*AttrExpr) node()        {}
func (*IndexExpr) node()       {}
func (*SliceExpr) node()       {}
func (*CallExpr) node()        {}
func (*FilterExpr) node()      {}
func (*TestExpr) node()        {}
func (*UnaryExpr) node()       {}
func (*BinaryExpr) node()      {}
func (*ConcatExpr) node()      {}
func (*CompareExpr) node()     {}
func (*CompareOp) node()       {}
func (*CondExpr) node()        {}
func (*Keyword) node()         {}

func (*NameExpr) expr()    {}
func (*ConstExpr) expr()   {}
func (*ListExpr) expr()    {}
func (*TupleExpr) expr()   {}
func (*DictExpr) expr()    {}
func (*AttrExpr) expr()    {}
func (*IndexExpr) expr()   {}
func (*SliceExpr) expr()   {}
func (*CallExpr) expr()    {}
func (*FilterExpr) expr()  {}
func (*TestExpr) expr()    {}
func (*UnaryExpr) expr()   {}
func (*BinaryExpr) expr()  {}
func (*ConcatExpr) expr()  {}
func (*CompareExpr) expr() {}
func (*CondExpr) expr()    {}

// Printing back. Statements print with minimal whitespace ({% if x %});
// expressions parenthesize every compound operand, so that the text parses
// back into the same tree.

func body(b *strings.Builder, nodes []Node) {
	for _, n := range nodes {
		b.WriteString(n.String())
	}
}

func bodyString(nodes []Node) string {
	var b strings.Builder
	body(&b, nodes)
	return b.String()
}

func (n *TextNode) String() string {
	if nextDelim(n.Text, 0) < 0 && !strings.HasSuffix(n.Text, "{") {
		return n.Text
	}
	return "{% raw %}" + n.Text + "{% endraw %}"
}

func (n *OutputNode) String() string { return "{{ " + n.X.String() + " }}" }

func (n *IfNode) String() string {
	var b strings.Builder
	for i, br := range n.Branches {
		if i == 0 {
			b.WriteString("{% if " + tagExpr(br.Cond) + " %}")
		} else {
			b.WriteString("{% elif " + tagExpr(br.Cond) + " %}")
		}
		body(&b, br.Body)
	}
	if n.Else != nil {
		b.WriteString("{% else %}")
		body(&b, n.Else)
	}
	b.WriteString("{% endif %}")
	return b.String()
}

func (n *Branch) String() string { return "{% elif " + tagExpr(n.Cond) + " %}" + bodyString(n.Body) }

// tagExpr prints the condition of if and elif or the iterable of for,
// which Jinja parses without conditional expressions (in for, "if" starts
// the loop's filter): a conditional expression there is parenthesized.
func tagExpr(x Expr) string {
	if _, ok := x.(*CondExpr); ok {
		return "(" + x.String() + ")"
	}
	return x.String()
}

func (n *ForNode) String() string {
	var b strings.Builder
	b.WriteString("{% for " + targetString(n.Target) + " in " + tagExpr(n.Iter))
	if n.Cond != nil {
		b.WriteString(" if " + n.Cond.String())
	}
	if n.Mark != nil {
		b.WriteString(" shrink " + n.Mark.String())
	}
	if n.Recursive {
		b.WriteString(" recursive")
	}
	b.WriteString(" %}")
	body(&b, n.Body)
	if n.Else != nil {
		b.WriteString("{% else %}")
		body(&b, n.Else)
	}
	b.WriteString("{% endfor %}")
	return b.String()
}

// targetString prints an assignment target: a tuple without parentheses.
func targetString(x Expr) string {
	if t, ok := x.(*TupleExpr); ok && len(t.Items) > 1 {
		parts := make([]string, len(t.Items))
		for i, it := range t.Items {
			parts[i] = it.String()
		}
		return strings.Join(parts, ", ")
	}
	return x.String()
}

func (n *SetNode) String() string {
	return "{% set " + targetString(n.Target) + " = " + n.Value.String() + " %}"
}

func (n *SetBlockNode) String() string {
	return "{% set " + targetString(n.Target) + filterChain(n.Filters) + " %}" + bodyString(n.Body) + "{% endset %}"
}

func filterChain(fs []*FilterExpr) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(" | " + f.call())
	}
	return b.String()
}

func (n *WithNode) String() string {
	parts := make([]string, len(n.Targets))
	for i := range n.Targets {
		parts[i] = targetString(n.Targets[i]) + " = " + n.Values[i].String()
	}
	head := "{% with %}"
	if len(parts) > 0 {
		head = "{% with " + strings.Join(parts, ", ") + " %}"
	}
	return head + bodyString(n.Body) + "{% endwith %}"
}

func contextString(with bool) string {
	if with {
		return ""
	}
	return " without context"
}

func (n *IncludeNode) String() string {
	s := "{% include " + n.Template.String()
	if n.IgnoreMissing {
		s += " ignore missing"
	}
	return s + contextString(n.WithContext) + " %}"
}

func (n *ImportNode) String() string {
	s := "{% import " + n.Template.String() + " as " + n.Target
	if n.WithContext {
		s += " with context"
	}
	return s + " %}"
}

func (n *FromImportNode) String() string {
	parts := make([]string, len(n.Names))
	for i, in := range n.Names {
		parts[i] = in.Name
		if in.Alias != "" {
			parts[i] += " as " + in.Alias
		}
	}
	s := "{% from " + n.Template.String() + " import " + strings.Join(parts, ", ")
	if n.WithContext {
		s += " with context"
	}
	return s + " %}"
}

func (n *ExtendsNode) String() string { return "{% extends " + n.Template.String() + " %}" }

func (n *BlockNode) String() string {
	s := "{% block " + n.Name
	if n.Scoped {
		s += " scoped"
	}
	if n.Required {
		s += " required"
	}
	return s + " %}" + bodyString(n.Body) + "{% endblock %}"
}

func paramsString(ps []*Param) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.String()
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func (n *Param) String() string {
	if n.Default != nil {
		return n.Name + "=" + n.Default.String()
	}
	return n.Name
}

func (n *MacroNode) String() string {
	return "{% macro " + n.Name + paramsString(n.Params) + " %}" + bodyString(n.Body) + "{% endmacro %}"
}

func (n *CallBlockNode) String() string {
	s := "{% call"
	if len(n.Params) > 0 {
		s += paramsString(n.Params)
	}
	return s + " " + n.Call.String() + " %}" + bodyString(n.Body) + "{% endcall %}"
}

func (n *FilterBlockNode) String() string {
	return "{% filter " + strings.TrimPrefix(filterChain(n.Filters), " | ") + " %}" + bodyString(n.Body) + "{% endfilter %}"
}

func (n *AutoescapeNode) String() string {
	return "{% autoescape " + n.X.String() + " %}" + bodyString(n.Body) + "{% endautoescape %}"
}

func (n *BreakNode) String() string    { return "{% break %}" }
func (n *ContinueNode) String() string { return "{% continue %}" }

func (n *ChatNode) String() string {
	allow := ""
	if n.Allow != nil {
		roles := make([]string, len(n.Allow))
		for i, r := range n.Allow {
			roles[i] = constString(r)
		}
		allow = " allow=[" + strings.Join(roles, ", ") + "]"
	}
	mark := ""
	if n.Mark != nil {
		mark = " " + n.Mark.String()
	}
	return "{% chat role=" + n.Role.String() + allow + mark + " %}" + bodyString(n.Body) + "{% endchat %}"
}

func (n *ShrinkNode) String() string {
	return "{% shrink " + n.Mark.String() + " %}" + bodyString(n.Body) + "{% endshrink %}"
}

func (n *GenerationNode) String() string {
	return "{% generation %}" + bodyString(n.Body) + "{% endgeneration %}"
}

func (n *NameExpr) String() string { return n.Name }

func (n *ConstExpr) String() string { return constString(n.Value) }

func constString(v any) string {
	switch v := v.(type) {
	case nil:
		return "none"
	case bool:
		if v {
			return "true"
		}
		return "false"
	case string:
		return quote(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case *big.Int:
		return v.String()
	case float64:
		if math.IsInf(v, 1) {
			return "1e999" // a literal beyond float64's range, as it was written
		}
		s := strconv.FormatFloat(v, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eEn") {
			s += ".0"
		}
		return s
	}
	return fmt.Sprintf("%v", v)
}

// quote writes a string literal Jinja reads back as s.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

func exprList(xs []Expr) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = x.String()
	}
	return strings.Join(parts, ", ")
}

func (n *ListExpr) String() string { return "[" + exprList(n.Items) + "]" }

func (n *TupleExpr) String() string {
	if len(n.Items) == 1 {
		return "(" + n.Items[0].String() + ",)"
	}
	return "(" + exprList(n.Items) + ")"
}

func (n *DictExpr) String() string {
	parts := make([]string, len(n.Keys))
	for i := range n.Keys {
		parts[i] = n.Keys[i].String() + ": " + n.Values[i].String()
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// operand prints x where it is the operand of an operator or a postfix.
func operand(x Expr) string {
	switch x.(type) {
	case *NameExpr, *ConstExpr, *ListExpr, *TupleExpr, *DictExpr, *AttrExpr, *IndexExpr, *CallExpr:
		return x.String()
	}
	return "(" + x.String() + ")"
}

func (n *AttrExpr) String() string { return operand(n.X) + "." + n.Name }

func (n *IndexExpr) String() string {
	// x[a:b, c] has a tuple of subscripts, which parentheses would not
	// allow: print it bare.
	if t, ok := n.Index.(*TupleExpr); ok && len(t.Items) > 1 {
		return operand(n.X) + "[" + exprList(t.Items) + "]"
	}
	return operand(n.X) + "[" + n.Index.String() + "]"
}

func (n *SliceExpr) String() string {
	s := ""
	if n.Start != nil {
		s += n.Start.String()
	}
	s += ":"
	if n.Stop != nil {
		s += n.Stop.String()
	}
	if n.Step != nil {
		s += ":" + n.Step.String()
	}
	return s
}

func argsString(args []Expr, kwargs []*Keyword, dyn, dynkw Expr) string {
	var parts []string
	for _, a := range args {
		parts = append(parts, a.String())
	}
	for _, k := range kwargs {
		parts = append(parts, k.String())
	}
	if dyn != nil {
		parts = append(parts, "*"+operand(dyn))
	}
	if dynkw != nil {
		parts = append(parts, "**"+operand(dynkw))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func (n *Keyword) String() string { return n.Name + "=" + n.Value.String() }

func (n *CallExpr) String() string {
	return operand(n.Fn) + argsString(n.Args, n.Kwargs, n.DynArgs, n.DynKwargs)
}

func (n *FilterExpr) call() string {
	if n.Args == nil && n.Kwargs == nil && n.DynArgs == nil && n.DynKwargs == nil {
		return n.Name
	}
	return n.Name + argsString(n.Args, n.Kwargs, n.DynArgs, n.DynKwargs)
}

func (n *FilterExpr) String() string {
	if n.X == nil {
		return n.call()
	}
	return filterOperand(n.X) + " | " + n.call()
}

// filterOperand prints the input of a filter or test, which binds tighter
// than every operator but the postfixes and unary minus.
func filterOperand(x Expr) string {
	switch x := x.(type) {
	case *FilterExpr:
		return x.String()
	case *TestExpr:
		// A test without arguments is parenthesized: in "x is none is
		// defined" Jinja would read the second "is" as the first test's
		// argument, and refuse it.
		if x.hasArgs() {
			return x.String()
		}
	}
	return operand(x)
}

func (n *TestExpr) hasArgs() bool {
	return n.Args != nil || n.Kwargs != nil || n.DynArgs != nil || n.DynKwargs != nil
}

func (n *TestExpr) String() string {
	s := filterOperand(n.X) + " is "
	if n.Negated {
		s += "not "
	}
	s += n.Name
	if n.hasArgs() {
		s += argsString(n.Args, n.Kwargs, n.DynArgs, n.DynKwargs)
	}
	return s
}

func (n *UnaryExpr) String() string {
	if n.Op == "not" {
		return "not " + operand(n.X)
	}
	return n.Op + operand(n.X)
}

func (n *BinaryExpr) String() string { return operand(n.L) + " " + n.Op + " " + operand(n.R) }

func (n *ConcatExpr) String() string {
	parts := make([]string, len(n.Items))
	for i, x := range n.Items {
		parts[i] = operand(x)
	}
	return strings.Join(parts, " ~ ")
}

func (n *CompareExpr) String() string {
	s := operand(n.X)
	for _, op := range n.Ops {
		s += " " + op.opString() + " " + operand(op.Y)
	}
	return s
}

func (n *CompareOp) opString() string {
	if n.Op == "notin" {
		return "not in"
	}
	return n.Op
}

func (n *CompareOp) String() string { return n.opString() + " " + operand(n.Y) }

func (n *CondExpr) String() string {
	s := operand(n.Then) + " if " + operand(n.Test)
	if n.Else != nil {
		s += " else " + operand(n.Else)
	}
	return s
}
