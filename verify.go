package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/wellknown-dev/wellknown/command/verify"
	"github.com/wellknown-dev/wellknown/internal/english"
)

func (c *cli) verify(args []string) int {
	fs := c.newFlags("verify", "[flags] DIR | https://origin")
	var opt verify.Options
	fs.StringVar(&opt.StatePath, "state", "", "remember applied entries and revoked trust in this file between runs")
	fs.BoolVar(&opt.ResetTrust, "reset-trust", false, "trust again an origin the state file distrusts because its feed was terminated or migrated")
	fs.BoolVar(&opt.AllowRollback, "allow-rollback", false, "accept, as a warning, a feed that lost entries or took an endpoint's version back since the state file's last run (a deliberate reset), and update the state file")
	fs.BoolVar(&opt.Follow, "follow", false, fmt.Sprintf("verify the origin a migrated feed moved to (at most %d times)", verify.MaxFollow))
	fs.StringVar(&opt.Base, "base", "", "for DIR: the URL it is published at (default: the feed's self link)")
	fs.StringVar(&opt.DID, "did", "", "the DID the target must have (default: did:web of its URL); for testing a mirror of another origin")
	fs.Int64Var(&opt.MaxBytes, "max-bytes", verify.DefaultMaxBytes, "refuse any document larger than this")
	fs.Func("provider-key", "an EDP provider's key, to check its attestations: PROVIDER=FILE.pem or PROVIDER=https://…/jwks.json (repeatable)", func(v string) error {
		provider, src, ok := strings.Cut(v, "=")
		if !ok || provider == "" || src == "" {
			return errors.New("want PROVIDER=FILE.pem or PROVIDER=URL")
		}
		if opt.ProviderKeys == nil {
			opt.ProviderKeys = map[string]string{}
		}
		opt.ProviderKeys[provider] = src
		return nil
	})
	fs.DurationVar(&opt.Timeout, "timeout", verify.DefaultTimeout, "give up on one request after this long")
	fs.DurationVar(&opt.Deadline, "deadline", verify.DefaultDeadline, fmt.Sprintf("give up on the whole run after this long, naming what was not read (%d requests at a time)", verify.MaxConcurrent))
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if code, done := c.parse(fs, args); done {
		return code
	}
	if fs.NArg() != 1 {
		c.errorf("verify takes one directory or origin URL")
		c.hintf("wellknown verify public, or wellknown verify https://example.com")
		return 2
	}
	opt.Target = fs.Arg(0)
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
		for _, e := range o.EDP {
			fmt.Fprintln(c.stdout, e)
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
			name, status, trust, o.Verified, english.Count(o.Entries, "entry"), english.Count(o.Documents, "document"),
			english.Count(o.Errors, "error"), english.Count(o.Warnings, "warning"))
	}
	verdict := "ok"
	if !rep.OK {
		verdict = "FAILED"
	}
	fmt.Fprintf(c.stdout, "verify %s: %s, %s\n", verdict, english.Count(rep.Errors, "error"), english.Count(rep.Warnings, "warning"))
}
