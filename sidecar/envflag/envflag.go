// Package envflag reads a glimpse binary's settings: each one a flag with
// an environment-variable twin (--storage-dir ⇔ GLIMPSE_STORAGE_DIR) and
// a default. A flag on the command line wins over its variable; an empty
// variable counts as unset. Every bad value is reported, each naming the
// flag or variable, the value given and what is accepted. Both binaries
// use it; it imports nothing of glimpse's.
package envflag

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Setting is one flag and its variable. Parse reads a value into its
// destination; its error says what is accepted ("want …"). A Secret's
// value is never quoted: its error reads "<variable> <what Parse said>",
// so Parse words it as "is not set: …".
type Setting struct {
	Flag, Env, Default, Usage string
	Parse                     func(string) error
	Secret                    bool
}

// Load reads settings from args and the environment (getenv), after their
// defaults. With -h or --help it prints the usage to out, headed by about,
// and returns flag.ErrHelp.
func Load(name, about string, settings []Setting, args []string, getenv func(string) string, out io.Writer) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() { printUsage(out, name, about, settings) }
	values := make([]string, len(settings))
	for i, s := range settings {
		fs.StringVar(&values[i], s.Flag, "", s.Usage)
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q: %s takes flags only (see --help)", fs.Arg(0), name)
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var errs []error
	for i, s := range settings {
		value, source := s.Default, s.Env
		if given[s.Flag] {
			value, source = values[i], "--"+s.Flag
		} else if v := getenv(s.Env); v != "" {
			value, source = v, s.Env
		}
		switch err := s.Parse(value); {
		case err == nil:
		case s.Secret:
			errs = append(errs, fmt.Errorf("%s %v", source, err))
		default:
			errs = append(errs, fmt.Errorf("%s=%q is not valid: %v", source, value, err))
		}
	}
	return errors.Join(errs...)
}

func printUsage(out io.Writer, name, about string, settings []Setting) {
	fmt.Fprintf(out, "Usage: %s [flags]\n\n%s\n\nEach flag has an environment variable; the flag wins when both are set.\n\n", name, strings.TrimSpace(about))
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	for _, s := range settings {
		def := ""
		if s.Default != "" {
			def = fmt.Sprintf(" (default %q)", s.Default)
		}
		fmt.Fprintf(tw, "  --%s\t%s\t%s%s\n", s.Flag, s.Env, s.Usage, def)
	}
	tw.Flush()
}

// String stores the value as it is.
func String(p *string) func(string) error {
	return func(v string) error { *p = v; return nil }
}

// Int reads a whole number of at least min.
func Int(p *int, min int) func(string) error {
	return func(v string) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < min {
			return fmt.Errorf("want a whole number of at least %d", min)
		}
		*p = n
		return nil
	}
}

// Int64 reads a whole number of at least min.
func Int64(p *int64, min int64) func(string) error {
	return func(v string) error {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < min {
			return fmt.Errorf("want a whole number of at least %d", min)
		}
		*p = n
		return nil
	}
}

// Duration reads a positive duration such as 30s or 2m.
func Duration(p *time.Duration) func(string) error {
	return func(v string) error {
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil || d <= 0 {
			return errors.New("want a positive duration such as 30s or 2m")
		}
		*p = d
		return nil
	}
}

// Bool reads true or false.
func Bool(p *bool) func(string) error {
	return func(v string) error {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return errors.New("want true or false")
		}
		*p = b
		return nil
	}
}

// OneOf accepts one of the allowed words, in any case.
func OneOf(p *string, allowed ...string) func(string) error {
	return func(v string) error {
		v = strings.ToLower(strings.TrimSpace(v))
		for _, a := range allowed {
			if v == a {
				*p = v
				return nil
			}
		}
		if len(allowed) == 1 {
			return fmt.Errorf("want %s", allowed[0])
		}
		return fmt.Errorf("want %s or %s", strings.Join(allowed[:len(allowed)-1], ", "), allowed[len(allowed)-1])
	}
}

// Prefixes reads CIDRs or single addresses separated by commas with
// parse; empty is none.
func Prefixes(p *[]netip.Prefix, parse func(string) ([]netip.Prefix, error)) func(string) error {
	return func(v string) error {
		if strings.TrimSpace(v) == "" {
			*p = nil
			return nil
		}
		ps, err := parse(v)
		if err != nil {
			return fmt.Errorf("want CIDRs or addresses separated by commas, such as 127.0.0.0/8,::1 (%v)", err)
		}
		*p = ps
		return nil
	}
}
