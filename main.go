// Command wellknown builds the discovery bundle of a site that runs MCP
// servers and AI agents: the .well-known documents, a signed change feed, the
// did:web document and human pages.
//
// Output rules: results (a build summary, a generated key) go to standard
// output; everything else goes to standard error as "wellknown: <kind>: …"
// lines, where kind is error, warning, notice or hint; a build also names
// each stage as it starts ("wellknown: read: git history…") when standard
// error is a terminal. With --json, standard
// output holds exactly one JSON object. Exit status: 0 success, 1 a failed
// build or check, 2 a usage error.
package main

import (
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wellknown-dev/wellknown/format/didweb"
	"github.com/wellknown-dev/wellknown/generator"
	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/generator/keyguard"
	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/english"
	"github.com/wellknown-dev/wellknown/internal/heapfloor"
	"github.com/wellknown-dev/wellknown/internal/suggest"
	"github.com/wellknown-dev/wellknown/internal/version"
)

const usage = `wellknown builds the discovery bundle of a site that runs MCP servers and AI agents.

Usage:
  wellknown build   [--config FILE] [--out DIR] [flags]   build the site into DIR (default public)
  wellknown serve   [--config FILE] [--addr HOST:PORT]    preview the site, rebuilt on every change
  wellknown keygen  [-o FILE]                             create a signing key
  wellknown sync    --url URL | --command CMD [flags]     write a running server's tools into tool files
  wellknown verify  [flags] DIR | https://origin          check a built site or a live origin against the agent-feed contract
  wellknown check   [--base REF] [flags]                  list the feed entries a branch adds; fail on an unacknowledged breaking change
  wellknown diff    [--json] OLD NEW | --rev A..B FILE    classify the changes between two versions of a tool; exit 1 if breaking
  wellknown init    [--host HOST] [--existing] [DIR]      create a site, its signing key and a host's deploy files (--existing: in a repository with tools)
  wellknown version                                       print the version, commit and date (also --version)

Run "wellknown <command> -h" for a command's flags.
`

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// cli carries the output streams of one invocation.
type cli struct {
	stdout, stderr io.Writer
	// hinted holds the hints said so far (see say): a hint that several
	// problems share, warnings and errors alike, is said once.
	hinted map[string]bool
}

func run(args []string, stdout, stderr io.Writer) int {
	c := &cli{stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "build":
		return c.build(args[1:])
	case "serve":
		return c.serve(args[1:])
	case "keygen":
		return c.keygen(args[1:])
	case "sync":
		return c.sync(args[1:])
	case "verify":
		return c.verify(args[1:])
	case "check":
		return c.check(args[1:])
	case "diff":
		return c.diff(args[1:])
	case "init":
		return c.initSite(args[1:])
	case "version", "--version", "-version", "-v":
		return c.version(args[1:])
	case "help":
		return c.help(args[1:])
	case "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	return c.unknownCommand(args[0])
}

// help prints the usage, or a command's usage and flags, on standard
// output: help is what was asked for, and it pipes into a pager.
func (c *cli) help(args []string) int {
	switch {
	case len(args) == 0:
		fmt.Fprint(c.stdout, usage)
		return 0
	case len(args) > 1:
		c.errorf("help takes one command (got %q)", strings.Join(args, " "))
		return 2
	case args[0] == "help":
		fmt.Fprint(c.stdout, helpUsage)
		return 0
	case !slices.Contains(commands, args[0]):
		return c.unknownCommand(args[0])
	}
	return run([]string{args[0], "-h"}, c.stdout, c.stderr)
}

// helpUsage is what help says about itself.
const helpUsage = `Usage: wellknown help [COMMAND]

Prints the list of commands, or COMMAND's usage and flags, on standard output.
`

// commands are the subcommands run dispatches to.
var commands = []string{"build", "serve", "keygen", "sync", "verify", "check", "diff", "init", "version", "help"}

// unknownCommand reports a command run does not know, with the one meant
// when it is near one, and returns exit status 2.
func (c *cli) unknownCommand(name string) int {
	c.errorf("unknown command %q", name)
	if near, ok := suggest.Closest(name, commands); ok {
		c.hintf("did you mean %q?", near)
	}
	c.hintf(`run "wellknown -h" for the list of commands`)
	return 2
}

func (c *cli) errorf(format string, args ...any) {
	fmt.Fprintf(c.stderr, "wellknown: error: "+format+"\n", args...)
}

func (c *cli) warnf(format string, args ...any) {
	fmt.Fprintf(c.stderr, "wellknown: warning: "+format+"\n", args...)
}

func (c *cli) noticef(format string, args ...any) {
	fmt.Fprintf(c.stderr, "wellknown: notice: "+format+"\n", args...)
}

func (c *cli) hintf(format string, args ...any) {
	fmt.Fprintf(c.stderr, "wellknown: hint: "+format+"\n", args...)
}

// fail prints every problem of err (see say) and returns exit status 1.
func (c *cli) fail(err error) int {
	say(c, "error", diag.List(err))
	return 1
}

// say prints each problem on a "wellknown: <kind>: " line (kind is error
// or warning), followed by its hint when it has one not said before: a
// warning reads as an error does, located where it is known.
func say[E error](c *cli, kind string, problems []E) {
	if c.hinted == nil {
		c.hinted = map[string]bool{}
	}
	for _, p := range problems {
		fmt.Fprintf(c.stderr, "wellknown: %s: %v\n", kind, p)
		if h := diag.Hint(p); h != "" && !c.hinted[h] {
			c.hinted[h] = true
			c.hintf("%s", h)
		}
	}
}

// newFlags returns a flag set whose -h prints the command's usage line and
// its flags, written --flag as the docs write them, on standard output.
func (c *cli) newFlags(name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// The flag package's own messages are replaced by parse's one-line
	// errors; -h still prints the usage.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintf(c.stdout, "Usage: wellknown %s %s\n", name, synopsis)
		printFlags(c.stdout, fs)
	}
	return fs
}

// printFlags lists fs's flags the way flag.PrintDefaults does, with two
// dashes.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	first := true
	fs.VisitAll(func(f *flag.Flag) {
		if first {
			fmt.Fprint(w, "\nFlags:\n")
			first = false
		}
		arg, help := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if arg != "" {
			line += " " + arg
		}
		if def := f.DefValue; def != "" && def != "false" && def != "0" && def != "[]" {
			if arg == "string" {
				def = strconv.Quote(def)
			}
			help += fmt.Sprintf(" (default %s)", def)
		}
		fmt.Fprintf(w, "%s\n    \t%s\n", line, strings.ReplaceAll(help, "\n", "\n    \t"))
	})
}

// parse parses flags and reports the exit status to return, if any: 0
// after -h, 2 for a flag it does not know or cannot read. Flags may come
// before, between or after the positional arguments (wellknown init site
// --host netlify); after "--" everything is positional. fs.Args() then
// holds the positional arguments in order.
func (c *cli) parse(fs *flag.FlagSet, args []string) (int, bool) {
	usage := fs.Usage
	fs.Usage = func() {} // the flag package shows it after errors too
	defer func() { fs.Usage = usage }()
	var positional []string
	for {
		err := fs.Parse(args)
		switch {
		case errors.Is(err, flag.ErrHelp):
			usage()
			return 0, true
		case err != nil:
			c.errorf("%v", err)
			if near, ok := closestFlag(fs, err); ok {
				c.hintf("did you mean --%s?", near)
			}
			c.hintf(`run "wellknown %s -h" for its flags`, fs.Name())
			return 2, true
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			positional = append(positional, rest...)
			break
		}
		positional, args = append(positional, rest[0]), rest[1:]
	}
	// Parsing "--" alone leaves exactly the positional arguments in fs.Args().
	fs.Parse(append([]string{"--"}, positional...))
	return 0, false
}

// closestFlag returns the flag of fs nearest to the one err says is not
// defined, when one is near.
func closestFlag(fs *flag.FlagSet, err error) (string, bool) {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !ok {
		return "", false
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return suggest.Closest(strings.TrimLeft(name, "-"), names)
}

// repeated is a flag that may be given several times.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ", ") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

type buildSummary struct {
	OK       bool              `json:"ok"`
	Out      string            `json:"out,omitempty"`
	BaseURL  string            `json:"base_url,omitempty"`
	Counts   *generator.Counts `json:"counts,omitempty"`
	Stages   map[string]int64  `json:"stages_ms,omitempty"`
	Key      string            `json:"key,omitempty"`
	Warnings []jsonError       `json:"warnings"`
	Errors   []jsonError       `json:"errors,omitempty"`
	Millis   int64             `json:"ms"`

	// Output says what the write changed, after a build that wrote.
	Output *bundle.WriteStats `json:"output,omitempty"`
}

func (c *cli) build(args []string) int {
	fs := c.newFlags("build", "[--config FILE] [--out DIR] [flags]")
	var opt generator.Options
	var sets repeated
	fs.StringVar(&opt.ConfigPath, "config", "site.toml", "the site definition")
	out := fs.String("out", "public", "output directory; only changed files are written, each atomically")
	fs.StringVar(&opt.KeyFile, "key-file", "", "signing key file (default: $WELLKNOWN_SIGNING_KEY, signing.key_file, or a development key)")
	fs.Var(&sets, "set", "override a setting, key=value (base_url, title, feed.status, servers.<slug>.version); repeatable")
	fs.BoolVar(&opt.Strict, "strict", false, "fail instead of using a development key, missing history or uncommitted changes (implied by CI=true)")
	fs.StringVar(&opt.Previous, "previous", "", "the published feed (file or URL); fail if any of its entries would change or disappear")
	fs.BoolVar(&opt.PreviousLive, "previous-live", false, "compare with the feed deployed at the site's base_url, as --previous does")
	fs.BoolVar(&opt.PreviousOptional, "previous-optional", false, "when the previous feed cannot be read (host down, DNS failure), warn and skip the comparison")
	fs.BoolVar(&opt.AllowShallow, "allow-shallow", false, "build from a shallow clone (a preview: the feed's history is cut off)")
	force := fs.Bool("force", false, "allow an output directory outside the site")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	if code, done := c.parse(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		c.errorf("build takes no arguments (got %q)", fs.Arg(0))
		return 2
	}
	if opt.PreviousLive && opt.Previous != "" {
		c.errorf("--previous and --previous-live are two sources of one feed: give one")
		return 2
	}
	opt.Overrides = sets
	opt.Getenv = os.Getenv
	opt.Progress = c.progress()

	// Most of what a build allocates is garbage soon: a tighter collector
	// than Go's default keeps a long history's build lower for a few
	// percent of time. Below a floor of 64 MB the heap grows to the floor
	// instead, which saves a short history's build a tenth of its history
	// stage; from a live heap of about 43 MB it grows by 32 MB (by a
	// quarter past 128 MB), not by 75%: that takes the peak of a build of
	// 100,000 commits from about 185 MB to 160 for a few percent of its
	// time, and of one of 200,000 from about 340 MB to 260 for 15%
	// (BENCHMARKS.md). A GOGC the user set wins.
	if os.Getenv("GOGC") == "" {
		defer heapfloor.Keep(64<<20, 32<<20, 75)()
	}
	start := time.Now()
	// The build writes once: its immutable files wait for the write on
	// disk, not in memory.
	opt.Spool = true
	res, err := generator.Build(opt)
	if err == nil {
		if opt.Progress != nil {
			opt.Progress("write: " + *out)
		}
		err = res.Write(*out, *force)
		defer res.Close()
	}
	sum := buildSummary{OK: err == nil, Out: *out, Warnings: []jsonError{}, Millis: time.Since(start).Milliseconds()}
	if res != nil {
		sum.BaseURL, sum.Counts, sum.Key, sum.Warnings = res.Config.URL("/"), &res.Counts, res.Key.Source, jsonProblems(res.Warnings)
		if err == nil {
			sum.Output = &res.Written
		}
		st := res.Stages
		sum.Stages = map[string]int64{"read": st.Read.Milliseconds(), "diff": st.Diff.Milliseconds(),
			"sign": st.Sign.Milliseconds(), "render": st.Render.Milliseconds(), "write": st.Write.Milliseconds()}
	}
	if err != nil {
		if *asJSON {
			sum.Errors = jsonErrors(err)
			c.printJSON(sum)
		}
		return c.fail(err)
	}
	c.reportKey(res.Key)
	for _, n := range res.Notices {
		c.noticef("%s", n)
	}
	say(c, "warning", res.Warnings)
	if *asJSON {
		c.printJSON(sum)
		return 0
	}
	fmt.Fprintf(c.stdout, "built %s for %s in %d ms, signed with %s\n", *out, sum.BaseURL, sum.Millis, res.Key.Source)
	w := res.Written
	fmt.Fprintf(c.stdout, "wrote %s, removed %d, %d unchanged\n\n", english.Count(w.Written, "file"), w.Removed, w.Unchanged)
	c.printBuildTable(res.Counts, res.Stages, time.Since(start))
	return 0
}

// printBuildTable prints what a build produced and where its time went:
// names on the left, figures aligned on the right.
func (c *cli) printBuildTable(n generator.Counts, st generator.Stages, total time.Duration) {
	ms := func(d time.Duration) string { return fmt.Sprintf("%d ms", d.Milliseconds()) }
	rows := [][2]string{
		{"documents", strconv.Itoa(n.Documents)}, {"pages", strconv.Itoa(n.Pages)},
		{"servers", strconv.Itoa(n.Servers)}, {"tools", strconv.Itoa(n.Tools)}, {"agents", strconv.Itoa(n.Agents)},
		{"feed entries", strconv.Itoa(n.Entries)}, {"tool versions", strconv.Itoa(n.Versions)}, {"files", strconv.Itoa(n.Files)},
		{},
		{"read", ms(st.Read)}, {"diff", ms(st.Diff)}, {"sign", ms(st.Sign)},
		{"render", ms(st.Render)}, {"write", ms(st.Write)}, {"total", ms(total)},
	}
	nameW, valueW := 0, 0
	for _, r := range rows {
		nameW, valueW = max(nameW, len(r[0])), max(valueW, len(r[1]))
	}
	for _, r := range rows {
		if r[0] == "" {
			fmt.Fprintln(c.stdout)
			continue
		}
		fmt.Fprintf(c.stdout, "  %-*s  %*s\n", nameW, r[0], valueW, r[1])
	}
}

// progress returns the Progress callback of a build: stages as they start,
// on standard error, when it is a terminal a person is watching.
func (c *cli) progress() func(string) {
	if f, ok := c.stderr.(*os.File); !ok || !isTerminal(f) {
		return nil
	}
	return func(stage string) { fmt.Fprintf(c.stderr, "wellknown: %s…\n", stage) }
}

// isTerminal reports whether f is a character device: a terminal, not a
// pipe or a file (/dev/null is one too, and progress written there is lost
// harmlessly).
func isTerminal(f *os.File) bool {
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

func (c *cli) reportKey(k didweb.SigningKey) {
	switch {
	case k.Missing != "":
		c.noticef("%s is missing (a fresh clone has none): this preview is signed with the development key %s", k.Missing, didweb.DevKeyPath)
	case k.Created:
		c.noticef("created a development signing key at %s; output signed with it is for local previews only", didweb.DevKeyPath)
		c.hintf("for a deploy, create a real key with: wellknown keygen -o signing.key (keep it out of git)")
	case k.Dev:
		c.noticef("signed with the development key %s (local previews only)", didweb.DevKeyPath)
	}
}

// jsonError is a problem, an error or a warning, as --json reports it:
// where (when known), what, and the fix (when known).
type jsonError struct {
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

// toJSONError is a located problem as --json reports it.
func toJSONError(d *diag.Error) jsonError {
	return jsonError{File: d.File, Line: d.Line, Message: d.Msg, Hint: d.Hint}
}

// jsonErrors lists each problem of err (see diag.List).
func jsonErrors(err error) []jsonError { return jsonProblems(diag.List(err)) }

// jsonProblems lists problems, errors or warnings, as --json reports them;
// none is an empty list.
func jsonProblems[E error](problems []E) []jsonError {
	out := []jsonError{}
	for _, p := range problems {
		var d *diag.Error
		if errors.As(p, &d) {
			out = append(out, toJSONError(d))
			continue
		}
		out = append(out, jsonError{Message: p.Error()})
	}
	return out
}

func (c *cli) printJSON(v any) {
	enc := json.NewEncoder(c.stdout)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (c *cli) keygen(args []string) int {
	fs := c.newFlags("keygen", "[-o FILE]")
	out := fs.String("o", "", "write the key to FILE (mode 0600, never overwritten) instead of standard output")
	if code, done := c.parse(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		c.errorf("keygen takes no arguments (got %q)", fs.Arg(0))
		return 2
	}
	if *out == "" {
		key := didweb.GenerateKey()
		c.stdout.Write(didweb.MarshalPEM(key))
		c.describeKey(key.Public().(ed25519.PublicKey))
		return 0
	}
	if err := didweb.WriteNewKey(*out); err != nil {
		return c.fail(err)
	}
	k, err := keyguard.LoadKey(didweb.KeySources{FlagFile: *out})
	if err != nil {
		return c.fail(err)
	}
	c.noticef("wrote a new signing key to %s", *out)
	c.describeKey(k.Public())
	c.hintf("keep %s out of git (add it to .gitignore); in CI, store its content in the secret named by signing.key_env", *out)
	return 0
}

// describeKey prints the public key in both forms did.json lists it.
func (c *cli) describeKey(pub ed25519.PublicKey) {
	c.noticef("public key: %s (Multikey %s)", didweb.EncodeBase64URLKey(pub), didweb.EncodeMultikey(pub))
}

func (c *cli) version(args []string) int {
	fs := c.newFlags("version", "")
	if code, done := c.parse(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		c.errorf("version takes no arguments (got %q)", fs.Arg(0))
		return 2
	}
	fmt.Fprintln(c.stdout, version.Get())
	return 0
}
