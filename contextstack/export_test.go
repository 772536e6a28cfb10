package contextstack

// The tests that render through the manager are in package
// contextstack_test: the manager imports this package (it checks a
// template set's declared tools by the stack's rules), so a test of this
// package cannot import it. These are the names they use.
var (
	BenchLayers = benchLayers
	TurnTime    = turnTime
	TestTool    = tool
	TestUser    = user
)

// RenderLayer renders one prompt layer's content as the stack does, and
// returns the template it rendered.
func RenderLayer(c Content, r Renderer) (string, error) {
	_, tmpl, err := c.render(r)
	return tmpl, err
}
