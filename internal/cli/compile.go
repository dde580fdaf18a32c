package cli

import (
	"context"
	"errors"
	"runtime/trace"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/pipeline"
)

// compile reads the inputs named by the global flags and compiles them.
func (g *globalOptions) compile() (*pipeline.Compiled, error) {
	if err := g.requireFiles(); err != nil {
		return nil, err
	}
	set, err := loadManifests(g, g.Files)
	if err != nil {
		return nil, err
	}
	if err := g.requireObjects(set); err != nil {
		return nil, err
	}
	v, err := families.LoadVersions(g.config)
	if err != nil {
		return nil, err
	}
	return families.CompileWith(set, g.config, v), nil
}

// compileForReport is compile for a command whose report must be written
// whole even when the run exits 3 (lint: a CI upload step reads its SARIF
// or JSON whatever the exit code). An input error — a path that cannot be
// read, no Kubernetes object at all, unreadable WSO2 definitions — is
// returned as inputErr with what could be compiled (possibly nothing), for
// the report to carry as a notification; other errors (usage) stop it.
func (g *globalOptions) compileForReport() (c *pipeline.Compiled, inputErr, err error) {
	if err := g.requireFiles(); err != nil {
		return nil, nil, err
	}
	isInput := func(err error) bool { return diag.KindOf(err) == diag.Invalid }
	set, err := loadManifests(g, g.Files)
	switch {
	case err != nil && !isInput(err):
		return nil, nil, err
	case err != nil:
		set, inputErr = &manifest.Set{}, err
	default:
		inputErr = g.requireObjects(set)
	}
	v, err := families.LoadVersions(g.config)
	switch {
	case err != nil && !isInput(err):
		return nil, nil, err
	case err != nil:
		inputErr, v = firstErr(inputErr, err), nil
	}
	c = families.CompileWith(set, g.config, v)
	if inputErr == nil {
		inputErr = inputResult(c)
	}
	return c, inputErr, nil
}

// requireObjects fails when the inputs hold no Kubernetes object at all:
// an empty directory, a 0-byte file or empty stdin would otherwise lint
// clean, and a CI gate pointed at the wrong path would pass for ever.
func (g *globalOptions) requireObjects(set *manifest.Set) error {
	if len(set.Objects) > 0 || g.AllowEmpty || set.Unreadable() {
		return nil // an unreadable input is reported as such, after the output
	}
	return diag.Errorf(diag.Invalid, "no Kubernetes objects found in %s: give files with apiVersion and kind, or --allow-empty where no input is fine",
		strings.Join(displayPaths(g.Files), ", "))
}

func displayPaths(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		if p == "-" {
			p = manifest.StdinName
		}
		out[i] = p
	}
	return out
}

// loadOptions are the manifest loader's settings from flags and config.
func (g *globalOptions) loadOptions() manifest.Options {
	return manifest.Options{Stdin: g.IO.In, Limits: manifest.Limits{MaxFileBytes: g.config.MaxFileSize},
		Exclude: slices.Concat(g.config.Exclude, g.Exclude), SizeHint: sizeHint, Each: families.Predecode(g.config),
		Read: func(n int) { memoryBudget(g.IO.Process, int64(n)) }}
}

// sizeHint is what an input over the size limit is told: the flag and
// config key that raise it (manifest does not know them).
const sizeHint = "raise the limit with --max-file-size BYTES or config maxFileSize (GWPOL_MAXFILESIZE) if this is intended"

// loadManifests reads paths with the loader settings of flags and config;
// an input over the size limit is told how to raise it.
func loadManifests(g *globalOptions, paths []string) (*manifest.Set, error) {
	defer trace.StartRegion(context.Background(), "load").End()
	set, err := manifest.Load(paths, g.loadOptions())
	if errors.Is(err, manifest.ErrTooLarge) {
		return nil, diag.Errorf(diag.Invalid, "%w; %s", err, sizeHint)
	}
	return set, err
}

// errUnreadable ends a run whose output was written but some of whose
// input could not be read (exit 3): the findings already name each file.
var errUnreadable = diag.Errorf(diag.Invalid, "some input could not be read (the %s findings name it); the output covers the rest", manifest.LintInputUnreadable.Code)

// firstErr is the first non-nil error.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// inputResult is what a command returns once its output is written: nil,
// or errUnreadable when part of the input was unreadable.
func inputResult(c *pipeline.Compiled) error {
	if c.Unreadable() {
		return errUnreadable
	}
	return nil
}

// lookupResult is a failed lookup's error (an object not found), made an
// input error (exit 3) when part of the input was unreadable: what the
// user asked for may be in that part, so the answer is not "no such
// object" (exit 2) but "gwpol could not read it".
func lookupResult(c *pipeline.Compiled, err error) error {
	if err == nil || !c.Unreadable() {
		return err
	}
	return diag.Errorf(diag.Invalid, "%v; it may be in the input that could not be read (%s findings above)", err, manifest.LintInputUnreadable.Code)
}
