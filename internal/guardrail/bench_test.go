package guardrail_test

import (
	"fmt"
	"testing"

	"github.com/gwpol/gwpol/internal/benchgen"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/guardrail"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/pipeline"
)

// BenchmarkEvaluate is the cost of three guardrails (setOnlyBy, a bound,
// a require) over benchgen's platform, after the compile lint needs
// anyway: per route, next to what compiling it costs.
func BenchmarkEvaluate(b *testing.B) {
	rules, err := parse(b, `guardrails:
- {name: owns, fields: [extAuth, cors], setOnlyBy: {namespaces: [infra]}}
- {name: cap, fields: [timeouts.request], max: 60s}
- {name: limited, require: [rateLimit.local], severity: warning}
`)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1000, 5000} {
		objs, err := manifest.Parse("bench.yaml", benchgen.Platform(n), manifest.Limits{})
		if err != nil {
			b.Fatal(err)
		}
		c := families.Compile(&manifest.Set{Objects: objs}, &pipeline.Config{Namespace: "default"})
		b.Run(fmt.Sprintf("routes=%d", n), func(b *testing.B) {
			for b.Loop() {
				guardrail.Evaluate(c.Result, rules)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/route")
		})
	}
}
