package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"

	"github.com/wellknown-dev/wellknown/generator/verify"
)

func (c *cli) verify(args []string) int {
	fs := c.newFlags("verify", "[flags] DIR | https://origin")
	var opt verify.Options
	fs.StringVar(&opt.StatePath, "state", "", "remember applied entries and revoked trust in this file between runs")
	fs.BoolVar(&opt.ResetTrust, "reset-trust", false, "trust again an origin the state file distrusts because its feed was terminated or migrated")
	fs.BoolVar(&opt.Follow, "follow", false, fmt.Sprintf("verify the origin a migrated feed moved to (at most %d times)", verify.MaxFollow))
	fs.StringVar(&opt.Base, "base", "", "for DIR: the URL it is published at (default: the feed's self link)")
	fs.StringVar(&opt.DID, "did", "", "the DID the target must have (default: did:web of its URL); for testing a mirror of another origin")
	fs.Int64Var(&opt.MaxBytes, "max-bytes", verify.DefaultMaxBytes, "refuse any document larger than this")
	fs.DurationVar(&opt.Timeout, "timeout", verify.DefaultTimeout, "give up on one request after this long")
	fs.DurationVar(&opt.Deadline, "deadline", verify.DefaultDeadline, fmt.Sprintf("give up on the whole run after this long, naming what was not read (%d requests at a time)", verify.MaxConcurrent))
	asJSON := fs.Bool("json", false, "print the report as JSON")
	// Flags may follow the target too: wellknown verify public --json.
	if code, done := c.parse(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		opt.Target = fs.Arg(0)
		if code, done := c.parse(fs, fs.Args()[1:]); done {
			return code
		}
	}
	if opt.Target == "" || fs.NArg() > 0 {
		c.errorf("verify takes one directory or origin URL")
		c.hintf("wellknown verify public, or wellknown verify https://example.com")
		return 2
	}
	if err := opt.Validate(); err != nil {
		c.fail(err)
		return 2
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := verify.Verify(ctx, opt)
	switch {
	case rep == nil:
	case *asJSON:
		c.printJSON(rep)
	default:
		c.printReport(rep)
	}
	if err != nil {
		return c.fail(err)
	}
	if !rep.OK {
		return 1
	}
	return 0
}

// printReport prints one line per finding, each origin's counts, and the
// verdict.
func (c *cli) printReport(rep *verify.Report) {
	for _, o := range rep.Origins {
		for _, f := range o.Findings {
			fmt.Fprintln(c.stdout, f)
			if f.Hint != "" {
				fmt.Fprintf(c.stdout, "  hint: %s\n", f.Hint)
			}
		}
		name := o.URL
		if o.Dir != "" {
			name = fmt.Sprintf("%s (as %s)", o.Dir, o.URL)
		}
		status, trust := o.FeedStatus, "trusted"
		if status == "" {
			status = "unread"
		}
		if !o.Trusted {
			trust = "not trusted"
		}
		fmt.Fprintf(c.stdout, "%s: feed %s, %s; %d of %s verified; %s read; %s, %s\n",
			name, status, trust, o.Verified, plural(o.Entries, "entry"), plural(o.Documents, "document"),
			plural(o.Errors, "error"), plural(o.Warnings, "warning"))
	}
	verdict := "ok"
	if !rep.OK {
		verdict = "FAILED"
	}
	fmt.Fprintf(c.stdout, "verify %s: %s, %s\n", verdict, plural(rep.Errors, "error"), plural(rep.Warnings, "warning"))
}
