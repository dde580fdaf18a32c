package policyversion

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/gwpol/gwpol/internal/diag"
)

// Resolution is the answer to one policy reference {name, version}.
type Resolution struct {
	Name string
	Ref  string // the version as written in the reference

	// Major and Identity are set when Ref is major-only ("v1",
	// "api-key-auth:v1"), even when no definition resolves.
	Major    string
	Identity string

	// Definition is the one definition the reference resolves to; nil when
	// Problem is set.
	Definition *Definition
	// Candidates are the definitions that matched when there were several
	// (GWP503), sorted by version.
	Candidates []*Definition

	Problem *Problem
	// Note is an informational finding about a resolution that succeeded
	// in a way the user may not expect (a reference without a version
	// resolved to the latest definition); nil otherwise.
	Note *Problem
}

// OK reports whether the reference resolved to exactly one definition.
func (r Resolution) OK() bool { return r.Problem == nil && r.Definition != nil }

// Resolved is the full version the reference resolves to, or "".
func (r Resolution) Resolved() string {
	if r.Definition == nil {
		return ""
	}
	return r.Definition.Version
}

var (
	// loose reads a major out of something that is not major-only, for the
	// fix hint: "V1", "1", "v1.2", "1.2.3-rc.1".
	loose = regexp.MustCompile(`^[vV]?(\d+)(?:[.\-+].*)?$`)
)

// Resolve resolves the reference {name, version: ref} the way the WSO2
// gateway-controller does (ResolvePolicyVersion): ref, trimmed, must be
// major-only (`^v\d+$`); it resolves to the single loaded definition of name
// whose version is vX.Y.Z and starts with "vN.". Definitions of the same
// name and version count once, as they do in the controller's
// name|version-keyed map.
//
// A ref that is empty resolves to the latest loaded definition of name
// itself (never ambiguous), run at its major, with a GWP508 Note naming it.
//
// Problems: GWP501 for a full-semver or malformed ref; GWP502 when
// no definition matches (naming the majors that do exist); GWP503 when
// several do (listing them).
func (ds *Definitions) Resolve(name, ref string) Resolution {
	r := Resolution{Name: name, Ref: ref}
	t := strings.TrimSpace(ref)
	if t == "" {
		latest := ds.latest(name)
		if latest == nil {
			r.Problem = ds.noLatest(name)
			return r
		}
		// The controller takes the latest definition itself
		// (ResolvePolicyVersion: latestVersions[name]) and hands the
		// engine its major; other definitions of that major do not make
		// the reference ambiguous, as they do for an explicit vN.
		r.Major = latest.Major
		r.Identity = Identity(name, latest.Major)
		r.Definition = latest
		r.Note = &Problem{
			Code:     LintVersionDefaulted.Code,
			Severity: diag.Info,
			Message: fmt.Sprintf("policy %s has no version; the gateway-controller resolves it to the latest loaded definition, %s, whose major %s the engine runs",
				name, latest, latest.Major),
			Hint: "set version: " + latest.Major + " to keep the API on this major when a newer definition is loaded",
		}
		return r
	}
	if !majorOnly.MatchString(t) {
		r.Problem = ds.refProblem(name, ref, t)
		return r
	}
	r.Major = t
	r.Identity = Identity(name, t)

	var matches []*Definition
	for _, d := range ds.Named(name) {
		if !d.Resolvable() || !strings.HasPrefix(d.Version, t+".") {
			continue
		}
		if len(matches) > 0 && matches[len(matches)-1].Version == d.Version {
			continue // same name|version: one entry in the controller's map
		}
		matches = append(matches, d)
	}
	switch len(matches) {
	case 0:
		r.Problem = ds.notFound(name, t)
	case 1:
		r.Definition = matches[0]
	default:
		r.Candidates = matches
		list := make([]string, len(matches))
		for i, d := range matches {
			list[i] = d.String()
		}
		r.Problem = &Problem{
			Code:     LintAmbiguousMajor.Code,
			Severity: diag.Error,
			Message: fmt.Sprintf("several policy definitions of %s match %s: %s; the gateway-controller cannot resolve the reference uniquely and rejects it",
				name, t, strings.Join(list, ", ")),
			Hint: fmt.Sprintf("keep exactly one definition of %s per major in the policy definitions", name),
		}
	}
	return r
}

// latest is the definition a reference without a version resolves to:
// the gateway-controller's validator takes the highest vX.Y.Z version
// loaded for the name (policy_validator.go@1c84e11c: ResolvePolicyVersion
// over BuildLatestVersionIndex, which skips a version not of that form).
func (ds *Definitions) latest(name string) *Definition {
	var best *Definition
	for _, d := range ds.Named(name) {
		if !d.Resolvable() || d.Semver == nil {
			continue
		}
		if best == nil || d.Semver.GreaterThan(best.Semver) {
			best = d
		}
	}
	return best
}

// noLatest is the GWP502 finding for a reference without a version to a
// name no resolvable definition has, with the validator's answer
// (ResolvePolicyVersion; "policy definition for 'X' not loaded" is the
// LLM transformer's, for the policies it adds itself, never a reference's).
func (ds *Definitions) noLatest(name string) *Problem {
	p := &Problem{Code: LintNoDefinitionForMajor.Code, Severity: diag.Error,
		Message: fmt.Sprintf("policy %s has no version and no policy definition named %s can be resolved; the gateway-controller answers \"policy '%s' not found in loaded policy definitions\"", name, name, name)}
	if near := ds.nearestName(name); near != "" {
		p.Hint = fmt.Sprintf("did you mean %s?", near)
	} else {
		p.Hint = fmt.Sprintf("add a policy definition of %s (version vX.Y.Z) to the policy definitions", name)
	}
	return p
}

// refProblem is the GWP501 finding for a ref that is not major-only.
func (ds *Definitions) refProblem(name, ref, t string) *Problem {
	p := &Problem{Code: LintVersionNotMajor.Code, Severity: diag.Error}
	if sv, err := semver.StrictNewVersion(strings.TrimPrefix(t, "v")); err == nil {
		p.Message = fmt.Sprintf("policy %s uses the full semantic version %q where a major-only version (vN) is required; the gateway-controller rejects it (\"version must be major-only\")",
			name, ref)
		p.Hint = fmt.Sprintf("use version: v%d", sv.Major())
		return p
	}
	p.Message = fmt.Sprintf("policy %s has version %q, which is not major-only (vN); the gateway-controller rejects it as an invalid version format", name, ref)
	if m := loose.FindStringSubmatch(t); m != nil {
		p.Hint = "use version: v" + m[1]
	} else {
		p.Hint = "use a major-only version such as version: v1"
	}
	return p
}

// notFound is the GWP502 finding: nothing of name resolves at major.
func (ds *Definitions) notFound(name, major string) *Problem {
	p := &Problem{Code: LintNoDefinitionForMajor.Code, Severity: diag.Error}
	ctrl := fmt.Sprintf("the gateway-controller answers \"major version '%s' not found in loaded policy definitions\"", major)
	named := ds.Named(name)
	if len(named) == 0 {
		p.Message = fmt.Sprintf("no policy definition named %s is loaded; %s", name, ctrl)
		if near := ds.nearestName(name); near != "" {
			p.Hint = fmt.Sprintf("did you mean %s?", near)
		} else {
			p.Hint = fmt.Sprintf("add the policy definition of %s %s.x.y to the policy definitions", name, major)
		}
		return p
	}
	// Definitions of that major the controller cannot see.
	var hidden []string
	for _, d := range named {
		if !d.Resolvable() && d.Major == major {
			hidden = append(hidden, d.String())
		}
	}
	majors := ds.Majors(name)
	switch {
	case len(majors) == 0:
		p.Message = fmt.Sprintf("no policy definition of %s at %s can be resolved: none of its definitions has a version of the form vX.Y.Z; %s", name, major, ctrl)
	default:
		p.Message = fmt.Sprintf("no policy definition of %s at %s; definitions exist for %s; %s", name, major, strings.Join(majors, ", "), ctrl)
	}
	if len(hidden) > 0 {
		p.Message += fmt.Sprintf(" (%s has that major but is not of the form vX.Y.Z, so the controller ignores it)", strings.Join(hidden, ", "))
		p.Hint = "write that definition's version as vX.Y.Z"
		return p
	}
	switch len(majors) {
	case 0:
		p.Hint = "give the definitions versions of the form vX.Y.Z"
	case 1:
		p.Hint = "use version: " + majors[0]
	default:
		p.Hint = fmt.Sprintf("use one of %s, or add a definition of %s %s.x.y", strings.Join(majors, ", "), name, major)
	}
	return p
}

// nearestName suggests a loaded name close to a misspelt one.
func (ds *Definitions) nearestName(name string) string {
	if ds == nil {
		return ""
	}
	best, bestD := "", 3 // at most two edits
	if len(name) < 5 {
		bestD = 2
	}
	for _, d := range ds.all {
		if d.Name == best {
			continue
		}
		if dist := diag.EditDistance(strings.ToLower(name), strings.ToLower(d.Name)); dist < bestD {
			best, bestD = d.Name, dist
		}
	}
	return best
}
