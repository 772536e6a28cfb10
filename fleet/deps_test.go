package fleet

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The registry client stays in this package and the CLI, the MCP SDK in
// mcpserver and the CLI: a host that renders prompts from files or an
// embedded set links neither oras-go nor the MCP SDK.
func TestLibraryDoesNotDependOnOrasOrMCP(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	mod := "github.com/seed-e7d2830f/promptkit"
	libs := []string{mod, mod + "/manager", mod + "/service", mod + "/builders", mod + "/contextstack", mod + "/rag",
		mod + "/fixture", mod + "/settest", mod + "/setdiff"}
	for _, pkg := range libs {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		require.NoError(t, err, string(out))
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasPrefix(dep, "oras.land/") || strings.HasPrefix(dep, "github.com/opencontainers/") || dep == mod+"/fleet" ||
				strings.HasPrefix(dep, "github.com/modelcontextprotocol/") || dep == mod+"/mcpserver" {
				t.Errorf("%s depends on %s", pkg, dep)
			}
		}
	}
}
