package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/wellknown-dev/wellknown/command/serve"
	"github.com/wellknown-dev/wellknown/command/serve/watch"
	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/english"
)

func (c *cli) serve(args []string) int {
	fs := c.newFlags("serve", "[--config FILE] [--addr HOST:PORT] [--poll[=INTERVAL]] [flags]")
	var opt serve.Options
	var sets repeated
	var poll pollFlag
	fs.StringVar(&opt.Build.ConfigPath, "config", "site.toml", "the site definition")
	fs.StringVar(&opt.Addr, "addr", serve.DefaultAddr, "address to listen on (a non-loopback one exposes the preview to the network)")
	fs.Var(&poll, "poll", fmt.Sprintf("poll for changes instead of using file-system events (for network and container mounts); --poll=DURATION sets the interval (default %v)", watch.DefaultPoll))
	fs.StringVar(&opt.Build.KeyFile, "key-file", "", "signing key file (default: $WELLKNOWN_SIGNING_KEY, signing.key_file, or a development key)")
	fs.Var(&sets, "set", "override a setting, key=value (base_url, title, feed.status, servers.<slug>.version); repeatable")
	if code, done := c.parse(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		c.errorf("serve takes no arguments (got %q)", fs.Arg(0))
		return 2
	}
	opt.Build.Overrides = sets
	opt.Build.Getenv = os.Getenv
	opt.Poll = time.Duration(poll)
	p := &servePrinter{cli: c}
	opt.OnBuild, opt.OnWatchError = p.build, p.watchError

	// Ctrl-C is caught from the start, so that it always stops the server cleanly.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, err := serve.New(opt)
	if err != nil {
		return c.fail(err)
	}
	if !srv.Loopback() {
		c.warnf("listening on %s, beyond this machine: anyone who can reach it sees the unpublished site", opt.Addr)
	}
	fmt.Fprintf(c.stdout, "serving %s (Ctrl-C to stop)\n", srv.URL())

	go func() {
		<-ctx.Done()
		stop() // a second Ctrl-C ends the process at once
	}()
	if err := srv.Run(ctx); err != nil {
		return c.fail(err)
	}
	fmt.Fprintln(c.stdout, "stopped")
	return 0
}

// servePrinter reports the server's builds in the terminal.
type servePrinter struct {
	*cli
	siteDir  string
	warnings []*diag.Error // the last good build's
}

func (p *servePrinter) build(b serve.Build) {
	p.hinted = nil // each build's report says its hints
	if b.Err != nil {
		p.fail(b.Err)
		p.noticef("still serving the last good build; pages show the errors until a rebuild succeeds")
		return
	}
	res := b.Result
	if b.Changed == nil {
		p.siteDir, _ = filepath.Abs(res.Config.Dir)
		p.reportKey(res.Key)
		fmt.Fprintf(p.stdout, "built %s for %s in %d ms\n", english.Count(res.Counts.Files, "file"), res.Config.URL("/"), b.Elapsed.Milliseconds())
	} else {
		fmt.Fprintf(p.stdout, "rebuilt in %d ms after a change to %s\n", b.Elapsed.Milliseconds(), p.describe(b.Changed))
	}
	// Only what the last build did not say: a warning that holds for the
	// whole session (the host's content types) is said once, while one an
	// edit brings back (uncommitted changes) is said again.
	var fresh []*diag.Error
	for _, w := range res.Warnings {
		if !slices.ContainsFunc(p.warnings, func(old *diag.Error) bool { return *old == *w }) {
			fresh = append(fresh, w)
		}
	}
	say(p.cli, "warning", fresh)
	p.warnings = res.Warnings
}

func (p *servePrinter) watchError(err error) {
	p.hinted = nil
	p.fail(err)
}

// describe names the changed paths relative to the site.
func (p *servePrinter) describe(changed []string) string {
	name := changed[0]
	if rel, err := filepath.Rel(p.siteDir, name); err == nil {
		name = rel
	}
	if len(changed) > 1 {
		return fmt.Sprintf("%s and %s", name, english.Count(len(changed)-1, "other path"))
	}
	return name
}

// pollFlag is --poll: alone, it polls at watch.DefaultPoll; --poll=DURATION
// sets the interval.
type pollFlag time.Duration

func (p *pollFlag) IsBoolFlag() bool { return true }

func (p *pollFlag) String() string {
	if *p == 0 {
		return ""
	}
	return time.Duration(*p).String()
}

func (p *pollFlag) Set(v string) error {
	switch v {
	case "true":
		*p = pollFlag(watch.DefaultPoll)
		return nil
	case "false":
		*p = 0
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return fmt.Errorf("want a positive interval such as 700ms, got %q", v)
	}
	*p = pollFlag(d)
	return nil
}
