package lint

import "github.com/gwpol/gwpol/internal/diag"

// inputRules: GWP1xx, problems with the documents themselves.
func inputRules() []Rule {
	return []Rule{
		stageRule("GWP100", "input-unreadable", "file unreadable, or a document in it not valid YAML/JSON or not an object",
			"A file could not be read, or one of its documents does not parse (the others are still read). Everything else is linted and the report written in full; the exit code is 3, as for any unreadable input.", diag.Error),
		stageRule("GWP101", "invalid-document", "document is not valid YAML/JSON or does not fit its kind",
			"A document could not be decoded into its kind (a field has the wrong type); every such field of the document is reported, each at its own position.", diag.Error),
		stageRule("GWP102", "unknown-field", "known kind with an unknown field",
			"A field the kind's API does not define, with the nearest field it does define. kubectl's strict field validation rejects the object, so it is an error; config strictFields: false (or --strict-fields=false) makes it a warning, for clusters that prune unknown fields instead.", diag.Error),
		stageRule("GWP103", "duplicate-object", "two objects with the same kind/namespace/name",
			"The second object would overwrite the first when applied; gwpol uses the first and reports the second.", diag.Error),
		stageRule("GWP104", "deprecated-version", "deprecated apiVersion",
			"The object uses an API version that is deprecated or no longer served; move to the v1 API.", diag.Warning),
		stageRule("GWP107", "not-a-manifest", "file holds no Kubernetes object; skipped",
			"A file found among the inputs has no apiVersion and kind (Chart.yaml, values.yaml, package.json, kustomization.yaml): it is not a manifest and is skipped. --exclude (config exclude) keeps it out of the run.", diag.Info),
		stageRule("GWP108", "template-not-rendered", "file is a Helm template; skipped",
			"A file holds Go template syntax as Helm charts do ({{ .Values… }}, {{- … }}): its YAML exists only once helm renders it. It is skipped; lint the output of helm template instead, or --exclude it.", diag.Warning),
		stageRule("GWP106", "namespace-labels-unknown", "namespace selector needs labels of a Namespace not in the input",
			"A listener's allowedRoutes selector needs labels beyond the automatic kubernetes.io/metadata.name of a namespace whose Namespace manifest is not in the input. gwpol assumes the routes from it are allowed, so they stay analysed, and reports the listener once per namespace; add the Namespace manifest to decide it.", diag.Warning),
	}
}
