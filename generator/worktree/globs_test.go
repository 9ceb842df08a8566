package worktree

import (
	"errors"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/format/tools"
	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/gittest"
	"github.com/wellknown-dev/wellknown/internal/inputfile"
)

// TestGlobsMatchingNothing checks that a tools or exclude glob that matches
// no file is an error at its line of site.toml, with the glob meant when a
// close one matches, unless it matches files of the history: a server
// whose tools were all removed, an exclude glob for files long gone.
func TestGlobsMatchingNothing(t *testing.T) {
	files := []string{"mcp/tools/get_forecast.json", "mcp/tools/internal/debug.json", "mcp/tools/list_alerts.json"}
	for _, tc := range []struct {
		name, globs string
		want, hint  string // "" for no error
	}{
		{"matches", `tools = "mcp/tools/**/*.json"
exclude = ["mcp/tools/internal/*.json"]`, "", ""},
		{"typo", `tools = "mcp/tols/*.json"`,
			`site.toml:4: tools glob "mcp/tols/*.json" matches no file`, `did you mean tools = "mcp/tools/*.json"? (a typo, or a moved directory)`},
		{"moved directory", `tools = "tools/*.json"`,
			`site.toml:4: tools glob "tools/*.json" matches no file`, `did you mean tools = "mcp/tools/*.json"?`},
		{"matches nothing ever", `tools = "mcp/tools/*.jsn"`,
			`site.toml:4: tools glob "mcp/tools/*.jsn" matches no file`, "no commit has a file it matches either: fix the glob, or leave tools out for a server without tool files"},
		{"tools all removed", `tools = "mcp/tools/*_ff_*.json"`, "", ""},
		{"exclude relative to the tools directory", `tools = "mcp/tools/**/*.json"
exclude = ["internal/*.json"]`,
			`site.toml:5: exclude glob "internal/*.json" matches none of the files of tools = "mcp/tools/**/*.json"`,
			`an exclude glob is relative to the directory of site.toml, as tools is: did you mean "mcp/tools/internal/*.json"?`},
		{"exclude typo", `tools = "mcp/tools/**/*.json"
exclude = ["mcp/tools/internal/debgu.json"]`,
			`exclude glob "mcp/tools/internal/debgu.json" matches none`, `did you mean "mcp/tools/internal/debug.json"?`},
		{"exclude of nothing", `tools = "mcp/tools/**/*.json"
exclude = ["mcp/tools/**/*.yaml"]`,
			`exclude glob "mcp/tools/**/*.yaml" matches none`, "no commit has a file it matches either: remove it, or write it relative to the directory of site.toml, as tools is"},
		{"exclude of history", `tools = "mcp/tools/**/*.json"
exclude = ["mcp/tools/*_ff_*.json"]`, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := gittest.New(t, t.TempDir())
			dir := repo.Dir
			repo.Write("mcp/tools/get_forecast_ff_hourly.json", `{"name": "get_forecast", "inputSchema": {"type": "object"}}`)
			repo.Commit("behind a flag")
			repo.Git("rm", "-q", "mcp/tools/get_forecast_ff_hourly.json")
			for _, f := range files {
				repo.Write(f, `{"name": "`+strings.TrimSuffix(path.Base(f), ".json")+`", "inputSchema": {"type": "object"}}`)
			}
			repo.Commit("tools")
			toml := "base_url = \"https://weather.example.com/\"\n[[servers]]\nname = \"com.example.weather/forecast\"\n" + tc.globs + "\nversion = \"1.0.0\"\n"
			cfg, err := site.Parse(filepath.Join(dir, "site.toml"), toml, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Load(cfg, tools.NewCache(), inputfile.Secret{})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				return
			}
			var d *diag.Error
			if !errors.As(err, &d) {
				t.Fatalf("Load error = %v, want a located error", err)
			}
			if !strings.Contains(d.Error(), tc.want) || !strings.Contains(d.Hint, tc.hint) {
				t.Errorf("Load error:\n  %v\n  hint: %s\nwant %q with hint %q", d, d.Hint, tc.want, tc.hint)
			}
		})
	}
}
