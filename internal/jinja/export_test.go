package jinja

// FilterInputs and TestInputs expose the type pass's tables to the
// external tests, which compare them with the runtime's catalog.
var (
	FilterInputs = filterInputs
	TestInputs   = testInputs
)
