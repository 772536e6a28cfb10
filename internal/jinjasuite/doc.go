// Package jinjasuite runs Jinja2's own test suite with promptkit doing
// every render: promptkit's acceptance suite. The suite is the tests/ of
// Jinja2 3.1.2, vendored in testdata/jinja2suite with its licence;
// TestJinjaSuite runs it with Debian's python3-pytest and python3-jinja2
// and a pytest plugin (promptkit_shim.py) that patches Jinja2's
// Environment and Template, so that each template a test compiles and
// each render goes to promptkit instead:
//
//	pytest ── promptkit_shim.py ──JSON lines──▶ Serve (this package, in the test binary)
//	                                             └─ manager.New(set) → Render
//
// One request is a template set (the environment loader's templates by
// name, and the template rendered), the environment's options that
// promptkit has (trim_blocks, lstrip_blocks, keep_trailing_newline) and the
// context, each value tagged where JSON has no form for it (values.go). Its
// answer is the output, or promptkit's error classed as the Jinja2
// exception it stands for (classify.go), which the plugin raises.
//
// Handle loads the set through the manager, as a host does: an
// in-memory file system whose index.json has one entry, the template
// rendered, declaring the context's names and every name the front end
// finds the template reads that nothing binds (each declared optional:
// a name a render does not pass is undefined, as in Jinja2).
//
// A test is then a pass, a documented difference (testdata/differences.md,
// each under its section of docs/jinja-differences.md), or not applicable,
// for a reason the plugin names (an option promptkit does not offer, a
// value that is not data); TestJinjaSuite fails on any other failure and
// holds the figures in the READMEs to the run. See
// testdata/jinja2suite/README.md.
package jinjasuite
