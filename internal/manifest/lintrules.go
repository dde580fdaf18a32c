package manifest

import "github.com/gwpol/gwpol/internal/diag"

// The lint rules of the findings about files and documents that manifest makes while loading. A finding takes its Code from its rule;
// lint's registry lists every rule (lint.Rules).
var (
	LintInputUnreadable = diag.Rule{Code: "GWP100", Name: "input-unreadable", Severity: diag.Error,
		Title: "file unreadable, or a document in it not valid YAML/JSON or not an object",
		Doc:   "A file could not be read, or one of its documents does not parse (the others are still read). Everything else is linted and the report written in full; the exit code is 3, as for any unreadable input."}
	LintNotAManifest = diag.Rule{Code: "GWP107", Name: "not-a-manifest", Severity: diag.Info,
		Title: "file holds no Kubernetes object; skipped",
		Doc:   "A file found among the inputs has no apiVersion and kind (Chart.yaml, values.yaml, package.json, kustomization.yaml): it is not a manifest and is skipped. --exclude (config exclude) keeps it out of the run."}
	LintTemplateNotRendered = diag.Rule{Code: "GWP108", Name: "template-not-rendered", Severity: diag.Warning,
		Title: "file is a Helm template; skipped",
		Doc:   "A file holds Go template syntax as Helm charts do ({{ .Values… }}, {{- … }}): its YAML exists only once helm renders it. It is skipped; lint the output of helm template instead, or --exclude it."}
	LintNotARegularFile = diag.Rule{Code: "GWP114", Name: "not-a-regular-file", Severity: diag.Warning,
		Title: "a FIFO, socket or device in an input directory; skipped unread",
		Doc:   "A file with a manifest's name (.yaml, .yml, .json) found while walking an -f directory is a FIFO, a socket or a device: reading it could block forever or never end, so gwpol skips it without opening it and reports it here. --exclude (config exclude) keeps it out of the run without a finding; it is then never opened either. Named directly with -f, such a file is an error; pipe input with -f - instead."}
	LintSymlinkOutsideInput = diag.Rule{Code: "GWP115", Name: "symlink-outside-input", Severity: diag.Warning,
		Title: "a symlink in an input directory points outside it; not followed",
		Doc:   "A file with a manifest's name (.yaml, .yml, .json) or a directory found while walking an -f directory is a symlink whose target is outside that directory (an absolute path, or one that climbs out with ..). A pull request can commit such a link, and what it points at on the machine running gwpol (credentials, the process's environment, the whole file system) is not its input: gwpol does not follow it, reads nothing through it and reports it here. Symlinks that stay inside the directory are followed. --exclude (config exclude) keeps it out of the run without a finding; to read the target, name it with -f."}
	LintDuplicateKey = diag.Rule{Code: "GWP109", Name: "duplicate-key", Severity: diag.Warning,
		Title: "a mapping sets one key twice; the last value is used",
		Doc:   "YAML forbids a mapping that sets one key twice, but the Kubernetes API server's decoder keeps the last value, and so does gwpol: each earlier value is reported at its line and ignored. The usual cause is a missing `---` between two documents, which merges the second into the first."}
)

// LintRules are the rules above, for lint's registry.
func LintRules() []diag.Rule {
	return []diag.Rule{LintInputUnreadable, LintNotAManifest, LintTemplateNotRendered, LintDuplicateKey, LintNotARegularFile, LintSymlinkOutsideInput}
}
