package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/wellknown-dev/wellknown/command/sync"
	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/english"
)

type syncSummary struct {
	OK       bool             `json:"ok"`
	Server   *sync.ServerInfo `json:"server,omitempty"`
	Dir      string           `json:"dir,omitempty"`
	Pages    int              `json:"pages"`
	Tools    []string         `json:"tools"`
	Changes  []syncChange     `json:"changes"`
	Skipped  []string         `json:"skipped"`
	Warnings []jsonError      `json:"warnings"`
	Errors   []jsonError      `json:"errors,omitempty"`
}

type syncChange struct {
	Tool   string     `json:"tool"`
	File   string     `json:"file"`
	Change sync.Kind  `json:"change"`
	Class  string     `json:"class,omitempty"`
	Diff   []syncDiff `json:"diff,omitempty"`
}

type syncDiff struct {
	Pointer string `json:"pointer"`
	Class   string `json:"class"`
	Text    string `json:"text"`
}

// exitStale is the exit status of sync --check when the tool files differ
// from what the server lists. It differs from 1, a failure, so that the
// drift workflow opens a pull request for a difference only, and fails on
// anything else (an unreachable server, a refused token).
const exitStale = 3

func (c *cli) sync(args []string) int {
	fs := c.newFlags("sync", "--url URL [--header 'Name: value']... | --command CMD  [--out DIR] [--server NAME] [flags]")
	config := fs.String("config", "site.toml", "the site definition")
	url := fs.String("url", "", "the server's Streamable HTTP endpoint")
	var headers repeated
	fs.Var(&headers, "header", "an HTTP header 'Name: value' for --url; $VAR and ${VAR} are read from the environment; repeatable")
	command := fs.String("command", "", "run the server with this command line and talk to it over stdio (split like a shell would, run without one)")
	out := fs.String("out", "", "directory for the tool files (default: the directory the server's tools glob reads)")
	server := fs.String("server", "", "the site's server to sync, by name or slug (needed when the site has several)")
	allowInvalid := fs.Bool("allow-invalid", false, "write the valid tools when some are invalid")
	check := fs.Bool("check", false, "write nothing; exit with 3 when the tool files differ from what the server lists (for CI)")
	var sets repeated
	fs.Var(&sets, "set", "override a setting of the site definition, key=value, as for build; repeatable")
	timeout := fs.Duration("timeout", 30*time.Second, "limit for the whole exchange with the server")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if code, done := c.parse(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		c.errorf("sync takes no arguments (got %q)", fs.Arg(0))
		return 2
	}
	src, err := syncSource(*url, headers, *command)
	if err != nil {
		c.errorf("%v", err)
		c.hintf(`run "wellknown sync -h" for the flags`)
		return 2
	}

	opt := sync.Options{Source: src, Dir: *out, AllowInvalid: *allowInvalid, Timeout: *timeout, DryRun: *check}
	if *out == "" && !exists(*config) {
		return c.failSync(diag.Errorf("", 0, "%s not found, so there is no tools glob to take the directory from", *config).
			WithHint("pass --out DIR, or --config FILE"), *asJSON)
	}
	if *out == "" || isSet(fs, "config") || exists(*config) {
		if opt.Site, err = site.Load(*config, sets); err != nil {
			return c.failSync(err, *asJSON)
		}
		switch {
		case *out != "" && *server == "" && len(opt.Site.Servers) > 1:
			c.noticef("--out without --server: the server's name and version are not compared with a card of %s", *config)
		default:
			if opt.Server, err = sync.ChooseServer(opt.Site, *server); err != nil {
				c.errorf("%v", err)
				c.hintf("pass --server with one of the site's servers")
				return 2
			}
		}
	} else if *server != "" {
		c.errorf("--server needs the site definition, and %s does not exist", *config)
		return 2
	}
	if opt.Dir == "" {
		if opt.Dir, err = sync.DefaultDir(opt.Site, opt.Server); err != nil {
			return c.failSync(err, *asJSON)
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	r, err := sync.Run(ctx, opt)
	if err != nil {
		return c.failSync(err, *asJSON)
	}
	for _, e := range r.Skipped {
		c.warnf("skipped %v", e)
	}
	say(c, "warning", r.Warnings)
	stale := *check && len(r.Changes) > 0
	if *asJSON {
		sum := newSyncSummary(r)
		sum.OK = !stale
		c.printJSON(sum)
	} else {
		for _, ch := range r.Changes {
			fmt.Fprintln(c.stdout, describeChange(ch))
		}
		verb, prep := "synced", "into"
		if *check {
			verb, prep = "checked", "against"
		}
		fmt.Fprintf(c.stdout, "%s %s from %s (%s of tools/list) %s %s: %s\n",
			verb, english.Count(len(r.Tools), "tool"), serverLabel(r.Server, src), english.Count(r.Pages, "page"), prep, r.Dir, countChanges(r.Changes))
	}
	if stale {
		c.errorf("the tool files in %s are not what %s lists: %s", r.Dir, serverLabel(r.Server, src), countChanges(r.Changes))
		c.hintf("run wellknown sync without --check, and commit the files")
		return exitStale
	}
	return 0
}

// syncSource is the server --url or --command names.
func syncSource(url string, headers []string, command string) (*sync.Source, error) {
	switch {
	case (url == "") == (command == ""):
		return nil, errors.New("sync needs exactly one of --url and --command")
	case command != "" && len(headers) > 0:
		return nil, errors.New("--header goes with --url, not --command")
	case url != "":
		return sync.HTTP(url, headers, os.Getenv)
	}
	return sync.Stdio(command)
}

func (c *cli) failSync(err error, asJSON bool) int {
	if asJSON {
		c.printJSON(syncSummary{Tools: []string{}, Changes: []syncChange{}, Skipped: []string{}, Warnings: []jsonError{}, Errors: jsonErrors(err)})
	}
	return c.fail(err)
}

func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func newSyncSummary(r *sync.Report) syncSummary {
	sum := syncSummary{OK: true, Server: &r.Server, Dir: r.Dir, Pages: r.Pages, Tools: nonNil(r.Tools),
		Changes: []syncChange{}, Skipped: []string{}, Warnings: jsonProblems(r.Warnings)}
	for _, ch := range r.Changes {
		sc := syncChange{Tool: ch.Tool, File: ch.File, Change: ch.Kind, Class: string(ch.Class)}
		for _, d := range ch.Diff {
			sc.Diff = append(sc.Diff, syncDiff{Pointer: d.Pointer, Class: string(d.Class), Text: d.Text})
		}
		sum.Changes = append(sum.Changes, sc)
	}
	for _, e := range r.Skipped {
		sum.Skipped = append(sum.Skipped, e.Error())
	}
	return sum
}

// describeChange is a change's line in the report.
func describeChange(ch sync.Change) string {
	switch ch.Kind {
	case sync.Changed:
		texts := make([]string, len(ch.Diff))
		for i, d := range ch.Diff {
			texts[i] = d.Text
		}
		return fmt.Sprintf("changed %s (%s): %s", ch.Tool, ch.Class, strings.Join(texts, "; "))
	case sync.Reformatted:
		return fmt.Sprintf("reformatted %s (same schema)", ch.Tool)
	}
	return fmt.Sprintf("%s %s (%s)", ch.Kind, ch.Tool, ch.Class)
}

// serverLabel names the server as it introduced itself.
func serverLabel(info sync.ServerInfo, src *sync.Source) string {
	if info.Name == "" {
		return src.String()
	}
	return strings.TrimSpace(info.Name + " " + info.Version)
}

// countChanges says how many tools changed in which way ("1 added, 2
// changed", or "no changes"), relying on the report's order by kind.
func countChanges(changes []sync.Change) string {
	var parts []string
	for i := 0; i < len(changes); {
		j := i
		for j < len(changes) && changes[j].Kind == changes[i].Kind {
			j++
		}
		parts = append(parts, fmt.Sprintf("%d %s", j-i, changes[i].Kind))
		i = j
	}
	if len(parts) == 0 {
		return "no changes"
	}
	return strings.Join(parts, ", ")
}
