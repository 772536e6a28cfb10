package contextstack

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error the package returns wraps one of them, so
// callers branch with errors.Is and print the error for people.
var (
	// ErrToolNameConflict is wrapped by *ToolNameConflictError: two tools
	// with one name in a stack.
	ErrToolNameConflict = errors.New("contextstack: tool name conflict")
	// ErrInvalidLayer is returned for a layer without content, or with
	// content of a kind this package does not know.
	ErrInvalidLayer = errors.New("contextstack: invalid layer")
	// ErrUnknownLayerType is returned when decoding a layer whose "type"
	// names no layer kind.
	ErrUnknownLayerType = errors.New("contextstack: unknown layer type")
	// ErrDecode is returned for JSON that is not a stack, a layer, a tool
	// choice or a list of tool specs.
	ErrDecode = errors.New("contextstack: invalid JSON")
	// ErrIndexOutOfRange is returned by Stack.Insert for an index outside
	// [0, Len()].
	ErrIndexOutOfRange = errors.New("contextstack: index out of range")
	// ErrRender is wrapped by *RenderError: a prompt layer failed to render.
	ErrRender = errors.New("contextstack: render failed")
	// ErrInvalidToolChoice is returned for a tool choice that is neither
	// "auto", "any", a tool name nor a list of tool names.
	ErrInvalidToolChoice = errors.New("contextstack: invalid tool choice")
)

// CodeToolNameConflict is the stable code of *ToolNameConflictError, for
// hosts that report errors across a process boundary.
const CodeToolNameConflict = "TOOL_NAME_CONFLICT"

// ToolNameConflictError reports two tools with one name in a stack: in two
// tool-definition layers, or twice in one. Layers are numbered from 0 in
// stack order; First is the layer that defined the name first.
type ToolNameConflictError struct {
	Name         string // the tool name defined twice
	FirstSource  string // source of the layer that defined it first
	SecondSource string // source of the layer that defined it again
	FirstLayer   int    // index of that first layer in the stack
	SecondLayer  int    // index of the second layer; equal to FirstLayer within one layer
}

// Code returns the stable error code "TOOL_NAME_CONFLICT".
func (e *ToolNameConflictError) Code() string { return CodeToolNameConflict }

// Error says which name and which layers, e.g.
//
//	contextstack: tool name conflict: "search" in layer 2 (source "platform") is already defined in layer 0 (source "rag")
func (e *ToolNameConflictError) Error() string {
	if e.FirstLayer == e.SecondLayer {
		return fmt.Sprintf("%v: %q is defined twice in layer %d (source %q)",
			ErrToolNameConflict, e.Name, e.FirstLayer, e.FirstSource)
	}
	return fmt.Sprintf("%v: %q in layer %d (source %q) is already defined in layer %d (source %q)",
		ErrToolNameConflict, e.Name, e.SecondLayer, e.SecondSource, e.FirstLayer, e.FirstSource)
}

// Unwrap returns ErrToolNameConflict.
func (e *ToolNameConflictError) Unwrap() error { return ErrToolNameConflict }

// RenderError reports a prompt layer that failed to render. It unwraps to
// ErrRender and to the renderer's error, so errors.Is finds the template
// engine's sentinels (manager.ErrMissingVariables…) through it.
type RenderError struct {
	Layer    int       // index of the layer in the stack
	Type     LayerType // its type
	Source   string    // its source
	Template string    // the template it rendered
	Err      error     // the renderer's error
}

// Error names the layer and the template, then the renderer's error.
func (e *RenderError) Error() string {
	return fmt.Sprintf("%v: layer %d (%s, source %q), template %q: %v",
		ErrRender, e.Layer, e.Type, e.Source, e.Template, e.Err)
}

// Unwrap returns ErrRender and the renderer's error.
func (e *RenderError) Unwrap() []error { return []error{ErrRender, e.Err} }
