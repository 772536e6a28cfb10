package main

import "testing"

func TestServeSaveFixturesNeedsADirectory(t *testing.T) {
	runCases(t, []cliCase{
		{name: "without --dev", args: []string{"serve", "--save-fixtures", "--dir", t.TempDir()}, code: exitUsage,
			stderr: "--save-fixtures writes into a set's directory: give --dev and --dir DIR"},
	})
}
