package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/wellknown-dev/wellknown/command/check"
	"github.com/wellknown-dev/wellknown/format/gitlog"
	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/english"
)

type checkSummary struct {
	OK       bool          `json:"ok"`
	Base     *check.Base   `json:"base,omitempty"`
	Repos    []check.Base  `json:"repos,omitempty"` // the bases of the tools repositories
	Entries  []check.Entry `json:"entries"`
	Warnings []jsonError   `json:"warnings"`
	Errors   []jsonError   `json:"errors,omitempty"`
	// Acknowledge is the site.toml text that would acknowledge every failed
	// entry, if the breaking changes are intended.
	Acknowledge string `json:"acknowledge,omitempty"`
}

func (c *cli) check(args []string) int {
	fs := c.newFlags("check", "[--base REF] [--repo-base DIR=REF]... [--config FILE] [--json]")
	var opt check.Options
	var repoBases repeated
	fs.StringVar(&opt.Base, "base", "", "the branch or commit to compare with (default: the merge base of HEAD and the default branch)")
	fs.Var(&repoBases, "repo-base", "DIR=REF: the branch or commit to compare the tools repository at DIR with (default: as for --base, in that repository); repeatable")
	fs.StringVar(&opt.Build.ConfigPath, "config", "site.toml", "the site definition")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if code, done := c.parse(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		c.errorf("check takes no arguments (got %q)", fs.Arg(0))
		c.hintf("name the revision to compare with: --base %s", fs.Arg(0))
		return 2
	}
	opt.RepoBases = map[string]string{}
	for _, rb := range repoBases {
		dir, ref, ok := strings.Cut(rb, "=")
		if !ok || dir == "" || ref == "" {
			c.errorf("--repo-base %q is not DIR=REF", rb)
			c.hintf("name a tools repository and its base, e.g. --repo-base ../server=origin/main")
			return 2
		}
		opt.RepoBases[dir] = ref
	}
	opt.Build.Getenv = os.Getenv
	annotate := os.Getenv("GITHUB_ACTIONS") == "true"

	res, err := check.Run(opt)
	if err != nil {
		if annotate {
			for _, e := range diag.List(err) {
				c.annotate("error", e)
			}
		}
		if *asJSON {
			c.printJSON(checkSummary{Entries: []check.Entry{}, Warnings: []jsonError{}, Errors: jsonErrors(err)})
		}
		return c.fail(err)
	}
	c.reportCheck(res, *asJSON, annotate)
	if !res.OK() {
		return 1
	}
	return 0
}

// reportCheck prints the entries on standard output (or as JSON), and the
// warnings and failures on standard error, also as GitHub Actions
// annotations when annotate.
func (c *cli) reportCheck(res *check.Result, asJSON, annotate bool) {
	c.reportWarnings(res.Warnings, annotate)
	problems, acknowledge := c.reportFailures(res.Entries, annotate)
	if asJSON {
		c.printJSON(checkSummary{OK: res.OK(), Base: &res.Base, Repos: res.Repos, Entries: append([]check.Entry{}, res.Entries...),
			Warnings: jsonProblems(res.Warnings), Errors: problems, Acknowledge: strings.Join(acknowledge, "\n")})
		return
	}
	c.printEntries(res)
	if len(acknowledge) > 0 {
		fmt.Fprintf(c.stdout, "\nIf the breaking changes are intended, add to site.toml:\n\n%s", strings.Join(acknowledge, "\n"))
	}
}

func (c *cli) reportWarnings(warnings []*diag.Error, annotate bool) {
	say(c, "warning", warnings)
	for _, w := range warnings {
		if annotate {
			c.annotate("warning", w)
		}
	}
}

// reportFailures prints an error for each failed entry, and returns the
// errors and the site.toml tables that would acknowledge them.
func (c *cli) reportFailures(entries []check.Entry, annotate bool) (problems []jsonError, acknowledge []string) {
	var failed []*diag.Error
	for _, e := range entries {
		if !e.Failed() {
			continue
		}
		p := e.Problem()
		if annotate {
			c.annotate("error", diag.Errorf(p.File, p.Line, "%s\n\nIf it is intended, add to site.toml:\n\n%s", p.Msg, strings.TrimSuffix(e.Acknowledgement(), "\n")))
		}
		failed = append(failed, p)
		acknowledge = append(acknowledge, e.Acknowledgement())
	}
	say(c, "error", failed)
	return jsonProblems(failed), acknowledge
}

func (c *cli) printEntries(res *check.Result) {
	since := describeBase(res.Base)
	for _, b := range res.Repos {
		since += fmt.Sprintf(", and in %s %s", b.Dir, describeBase(b))
	}
	if !slices.ContainsFunc(res.Repos, func(b check.Base) bool { return !b.AtHead }) && res.Base.AtHead {
		// On the default branch, the merge base compares nothing: a team
		// committing there needs the previous commit as the base.
		c.hintf("HEAD is on %s or has no commits of its own, so no commit was compared; to check the last commit, run: wellknown check --base HEAD~1", res.Base.Ref)
	}
	if len(res.Entries) == 0 {
		fmt.Fprintf(c.stdout, "no new feed entries since %s\n", since)
		return
	}
	fmt.Fprintf(c.stdout, "%s since %s:\n", english.Count(len(res.Entries), "new feed entry"), since)
	for _, e := range res.Entries {
		line := fmt.Sprintf("  %-10s  %s", e.Class, e.Summary)
		if e.AcknowledgedBy != "" {
			line += " (acknowledged by " + e.AcknowledgedBy + ")"
		}
		fmt.Fprintln(c.stdout, line)
	}
}

// describeBase names the revision a repository is compared at.
func describeBase(b check.Base) string {
	if b.AtHead {
		return fmt.Sprintf("the merge base of HEAD and %s (%s), which is HEAD itself", b.Ref, gitlog.Short(b.Commit))
	}
	if b.MergeBase {
		return fmt.Sprintf("the merge base of HEAD and %s (%s)", b.Ref, gitlog.Short(b.Commit))
	}
	return fmt.Sprintf("%s (%s)", b.Ref, gitlog.Short(b.Commit))
}

// annotate prints err as a GitHub Actions workflow command, which the
// runner shows on the file and line it names; a hint follows the message
// after a blank line, as the annotation is all a reviewer sees.
func (c *cli) annotate(kind string, err error) {
	var props []string
	var d *diag.Error
	msg := err.Error()
	if errors.As(err, &d) && d.File != "" {
		props = append(props, "file="+escapeProperty(d.File))
		if d.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", d.Line))
		}
		if err == error(d) {
			msg = d.Msg // the location is in the properties
			if d.Hint != "" {
				msg += "\n\n" + d.Hint
			}
		}
	}
	command := kind
	if len(props) > 0 {
		command += " " + strings.Join(props, ",")
	}
	fmt.Fprintf(c.stderr, "::%s::%s\n", command, escapeData(msg))
}

// escapeData escapes a workflow command's message.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
