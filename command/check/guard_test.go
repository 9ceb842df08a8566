package check

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/internal/diag"
)

// A tools glob typo'd so that it matches a close directory's files no
// longer is an error with the glob meant, before any feed is built.
func TestTypoedToolsGlobNamesTheGlobMeant(t *testing.T) {
	r := newSite(t)
	r.Write("site.toml", strings.Replace(siteTOML(""), `tools = "weather/*.json"`, `tools = "waether/*.json"`, 1))
	r.Commit("weather: tools moved (typo)")
	_, err := r.run("")
	var d *diag.Error
	if !errors.As(err, &d) || d.Error() != `site.toml:7: tools glob "waether/*.json" matches no file` ||
		d.Hint != `did you mean tools = "weather/*.json"? (a typo, or a moved directory)` {
		t.Fatalf("check: %v (hint %q), want the typo at site.toml:7 with the glob meant", err, hintOf(err))
	}
}

// A commit whose tools glob matched none of a server's tools signs the
// removal of each, even once the glob is fixed: check fails on it with a
// hint that names the likely cause, a strict check (CI) fails at the
// landing itself, and an acknowledgement lets it through.
func TestLandingThatRemovesEveryToolOfAServer(t *testing.T) {
	r := newSite(t)
	r.Write("weather/today.json", tool("today", false, "city"))
	r.Commit("weather: today")
	typo := strings.Replace(siteTOML(""), `tools = "weather/*.json"`, `tools = "weather/*.jsn"`, 1)
	r.Write("site.toml", typo)
	r.Commit("weather: tools glob (typo)")
	r.Write("site.toml", siteTOML(""))
	r.Commit("weather: tools glob fixed")

	res := r.mustRun("")
	var removals []Entry
	for _, e := range res.Entries {
		if e.To == "removed" {
			removals = append(removals, e)
		}
	}
	if res.OK() || len(removals) != 2 {
		t.Fatalf("entries %+v, want the removals of forecast and today to fail", res.Entries)
	}
	for _, e := range removals {
		if p := e.Problem(); !strings.HasPrefix(p.Hint, "a typo in its tools glob, or a directory moved?") {
			t.Errorf("%s: hint %q, want the typo hint", e.EndpointID, p.Hint)
		}
	}
	// The build's warning reaches check whole: located, with its hint.
	warned := false
	for _, w := range res.Warnings {
		warned = warned || w.File == "site.toml" && w.Line == 7 &&
			strings.Contains(w.Msg, "removes every tool of com.example/weather at once (forecast, today)") &&
			strings.HasPrefix(w.Hint, "a typo in its tools glob, or a directory moved?")
	}
	if !warned {
		t.Errorf("warnings %+v, want the landing that removed every tool, at its tools glob, with the hint", res.Warnings)
	}

	_, err := r.run("", "CI=true")
	var d *diag.Error
	if !errors.As(err, &d) || d.File != "site.toml" || d.Line != 7 ||
		!strings.HasPrefix(d.Msg, "commit ") || !strings.Contains(d.Msg, " (2026-04-01) removes every tool of com.example/weather at once (forecast, today): the feed would sign the removal of each") ||
		!strings.Contains(d.Hint, `[[breaking]] endpoint = "com.example/weather" to = "removed"`) {
		t.Fatalf("strict check: %v (hint %q), want the landing located at the tools glob", err, hintOf(err))
	}

	r.append("site.toml", "\n[[breaking]]\nendpoint = \"com.example/weather\"\nto = \"removed\"\nreason = \"a typo, fixed the next hour\"\n")
	r.Commit("acknowledge the typo")
	if res, err := r.run("", "CI=true"); err != nil || !res.OK() {
		t.Fatalf("acknowledged: %v, entries %+v", err, res)
	}
}

// The landing that removes a server from site.toml removes its tools with
// it: that is no glob matching nothing.
func TestServerRemovalIsNoEmptiedLanding(t *testing.T) {
	r := newSite(t)
	r.Write("site.toml", siteTOML("")[:strings.Index(siteTOML(""), "[[servers]]\nname = \"com.example/alerts\"")])
	r.remove("alerts/list.json")
	r.Commit("alerts: gone")
	res := r.mustRun("")
	for _, w := range res.Warnings {
		if strings.Contains(w.Error(), "removes every tool") {
			t.Errorf("warning %v for a server removed from the site", w)
		}
	}
}

func hintOf(err error) string {
	var d *diag.Error
	if errors.As(err, &d) {
		return d.Hint
	}
	return ""
}

// A schema change is located at the line, in the tool file as committed at
// HEAD, of the change that decided its version; a removed tool at the file
// it was deleted from, not at site.toml.
func TestEntriesPointAtTheChangedLine(t *testing.T) {
	r := newSite(t)
	r.Write("weather/forecast.json", `{
  "name": "forecast",
  "description": "A tool.",
  "inputSchema": {
    "type": "object",
    "properties": {
      "city": {"type": "string"},
      "days": {"type": "integer"}
    },
    "required": ["city"]
  }
}
`)
	r.remove("alerts/list.json")
	r.Commit("forecast: days; alerts: list removed")
	res := r.mustRun("")
	at := map[string]string{}
	for _, e := range res.Entries {
		at[e.Type+" "+e.EndpointID] = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	want := map[string]string{
		"schema-change com.example/weather#forecast": filepath.Join("weather", "forecast.json") + ":8", // "days"
		"deprecation com.example/alerts#list":        filepath.Join("alerts", "list.json") + ":1",
	}
	for k, w := range want {
		if at[k] != w {
			t.Errorf("%s located at %q, want %q (all: %v)", k, at[k], w, at)
		}
	}
}
