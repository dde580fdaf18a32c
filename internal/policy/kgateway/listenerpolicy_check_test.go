package kgateway

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// TestListenerPolicyInvalidSettings: a ListenerPolicy setting kgateway
// cannot build makes the policy invalid with kgateway's message (one per
// error, at the field), and only that setting is left out of the values
// that merge; the policy's other settings stay. A perPort entry keeps its
// value (render skips the failing setting there).
func TestListenerPolicyInvalidSettings(t *testing.T) {
	const lr = `default: {httpSettings: {serverName: edge, localReplies: {mappers: [{filter: {statusCodeFilter: {op: EQ, value: 503}}, headers: {add: [%s]}}]}}}`
	secret := func(ns, name, data string) string {
		return fmt.Sprintf("---\napiVersion: v1\nkind: Secret\nmetadata: {name: %s, namespace: %s}\n%s\n", name, ns, data)
	}
	service := func(ns, name string, port int) string {
		return fmt.Sprintf("---\napiVersion: v1\nkind: Service\nmetadata: {name: %s, namespace: %s}\nspec: {ports: [{port: %d}]}\n", name, ns, port)
	}
	grant := "---\napiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\nmetadata: {name: g, namespace: vault}\nspec:\n  from: [{group: gateway.kgateway.dev, kind: ListenerPolicy, namespace: infra}]\n  to: [{group: \"\", kind: Secret}]\n"
	tests := []struct {
		name, spec string
		want       []string // field: message
		keys       []string // Values left
		extra      string   // other objects of the input
	}{
		{"valid windows", `default: {httpSettings: {http2ProtocolOptions: {initialStreamWindowSize: 64Ki}, idleTimeout: 30s}}`,
			nil, []string{"default.httpSettings.http2ProtocolOptions", "default.httpSettings.mergeIdleTimeout"}, ""},
		{"one window out of range", `default: {httpSettings: {http2ProtocolOptions: {initialStreamWindowSize: 1Ki, maxConcurrentStreams: 10}, idleTimeout: 30s}}`,
			[]string{"spec.default.httpSettings.http2ProtocolOptions.initialStreamWindowSize: initialStreamWindowSize must be between 65535 and 2147483647 bytes (inclusive), got 1024"},
			[]string{"default.httpSettings.mergeIdleTimeout"}, ""},
		{"both windows out of range: two errors", `default: {httpSettings: {http2ProtocolOptions: {initialStreamWindowSize: 1Ki, initialConnectionWindowSize: 4Gi}}}`,
			[]string{
				"spec.default.httpSettings.http2ProtocolOptions.initialStreamWindowSize: initialStreamWindowSize must be between 65535 and 2147483647 bytes (inclusive), got 1024",
				"spec.default.httpSettings.http2ProtocolOptions.initialConnectionWindowSize: initialConnectionWindowSize must be between 65535 and 2147483647 bytes (inclusive), got 4294967296",
			}, nil, ""},
		{"bad local reply body format: the local replies go, the server name stays",
			`default: {httpSettings: {serverName: edge, localReplies: {defaultBodyFormat: {text: a, json: {b: c}}}}}`,
			[]string{"spec.default.httpSettings.localReplies: localReplies.defaultBodyFormat: text and json are exclusive"},
			[]string{"default.httpSettings.serverName"}, ""},
		{"a bad trusted CIDR is dropped, the others trusted",
			`default: {httpSettings: {useRemoteAddress: false, xffTrustedCIDRs: [10.0.0.0/8, not-a-cidr]}}`,
			[]string{"spec.default.httpSettings.xffTrustedCIDRs[1]: invalid CIDR address: not-a-cidr"},
			[]string{"default.httpSettings.useRemoteAddress", "default.httpSettings.xffConfig"}, ""},
		{"an access log that cannot be built takes both its keys with it",
			`default: {httpSettings: {accessLog: [{fileSink: {path: /dev/stdout}, grpcService: {logName: x, backendRef: {name: s, port: 9}}}], serverName: edge}}`,
			[]string{"spec.default.httpSettings.accessLog: accessLog[0]: fileSink and grpcService are exclusive"},
			[]string{"default.httpSettings.serverName"}, ""},
		{"perPort: reported at the entry, the entry kept",
			`perPort: [{port: 8080, listener: {httpSettings: {http2ProtocolOptions: {initialConnectionWindowSize: 1}}}}]`,
			[]string{"spec.perPort[0].listener.httpSettings.http2ProtocolOptions.initialConnectionWindowSize: initialConnectionWindowSize must be between 65535 and 2147483647 bytes (inclusive), got 1"},
			[]string{"perPortPolicy[8080]"}, ""},
		{"local reply header from a Secret not found: the local replies go, the server name stays",
			fmt.Sprintf(lr, `{name: x-token, secretRef: {name: tok, key: t}}`),
			[]string{"spec.default.httpSettings.localReplies: localReplies.mappers[0]: headers: secretRef: Secret infra/tok not found"},
			[]string{"default.httpSettings.serverName"}, ""},
		{"local reply header from a Secret without the key",
			fmt.Sprintf(lr, `{name: x-token, secretRef: {name: tok}}`),
			[]string{`spec.default.httpSettings.localReplies: localReplies.mappers[0]: headers: failed to resolve header 'x-token': secret infra/tok does not contain key "x-token"`},
			[]string{"default.httpSettings.serverName"}, secret("infra", "tok", "stringData: {t: v}")},
		{"local reply header from a Secret's named key",
			fmt.Sprintf(lr, `{name: x-token, secretRef: {name: tok, key: t}}`),
			nil, []string{"default.httpSettings.localReplyConfig", "default.httpSettings.serverName"}, secret("infra", "tok", "stringData: {t: v}")},
		{"local reply headers from every key of a Secret written with metadata only",
			fmt.Sprintf(lr, `{secretRef: {name: tok}}`),
			nil, []string{"default.httpSettings.localReplyConfig", "default.httpSettings.serverName"}, secret("infra", "tok", "")},
		{"local reply header from a Secret in another namespace without a ReferenceGrant",
			fmt.Sprintf(lr, `{name: x-token, secretRef: {name: tok, namespace: vault, key: t}}`),
			[]string{"spec.default.httpSettings.localReplies: localReplies.mappers[0]: headers: secretRef: Secret vault/tok is in another namespace and no ReferenceGrant in vault allows a ListenerPolicy in infra to read it (missing reference grant)"},
			[]string{"default.httpSettings.serverName"}, secret("vault", "tok", "stringData: {t: v}")},
		{"access log to a collector Service not found: the access log goes, the server name stays",
			`default: {httpSettings: {serverName: edge, accessLog: [{grpcService: {logName: l, backendRef: {name: collector, port: 4317}}}]}}`,
			[]string{"spec.default.httpSettings.accessLog: accessLog[0]: grpcService: unresolved backend reference: backend Service infra/collector not found"},
			[]string{"default.httpSettings.serverName"}, ""},
		{"access log to a collector Service without the port",
			`default: {httpSettings: {serverName: edge, accessLog: [{grpcService: {logName: l, backendRef: {name: collector, port: 4317}}}]}}`,
			[]string{"spec.default.httpSettings.accessLog: accessLog[0]: grpcService: unresolved backend reference: backend Service infra/collector has no port 4317"},
			[]string{"default.httpSettings.serverName"}, service("infra", "collector", 9000)},
		{"OpenTelemetry access log to a collector in another namespace without a ReferenceGrant",
			`default: {httpSettings: {accessLog: [{openTelemetry: {grpcService: {logName: o, backendRef: {name: otel, namespace: vault, port: 4317}}}}]}}`,
			[]string{"spec.default.httpSettings.accessLog: accessLog[0]: openTelemetry: grpcService: unresolved backend reference: backend Service vault/otel is in another namespace and no ReferenceGrant allows it (missing reference grant)"},
			nil, service("vault", "otel", 4317)},
		{"… with one from ListenerPolicies, the access log stands",
			`default: {httpSettings: {accessLog: [{openTelemetry: {grpcService: {logName: o, backendRef: {name: otel, namespace: vault, port: 4317}}}}]}}`,
			nil, []string{"default.httpSettings.accessLog", "default.httpSettings.accessLogConfig"}, service("vault", "otel", 4317) + strings.ReplaceAll(grant, "kind: Secret", "kind: Service")},
		{"OpenTelemetry tracer to a collector Service not found: tracing goes",
			`default: {httpSettings: {serverName: edge, tracing: {provider: {openTelemetry: {serviceName: s, grpcService: {backendRef: {name: otel, port: 4317}}}}}}}`,
			[]string{"spec.default.httpSettings.tracing: tracing.provider.openTelemetry: grpcService: unresolved backend reference: backend Service infra/otel not found"},
			[]string{"default.httpSettings.serverName"}, ""},
		{"… to one that exists",
			`default: {httpSettings: {tracing: {provider: {openTelemetry: {serviceName: s, grpcService: {backendRef: {name: otel, port: 4317}}}}}}}`,
			nil, []string{"default.httpSettings.tracing"}, service("infra", "otel", 4317)},
		{"… and with one from ListenerPolicies of the policy's namespace",
			fmt.Sprintf(lr, `{name: x-token, secretRef: {name: tok, namespace: vault, key: t}}`),
			nil, []string{"default.httpSettings.localReplyConfig", "default.httpSettings.serverName"}, secret("vault", "tok", "stringData: {t: v}") + grant},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := fmt.Sprintf("apiVersion: gateway.kgateway.dev/v1alpha1\nkind: ListenerPolicy\nmetadata: {name: lp, namespace: infra}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  %s\n", tt.spec) + tt.extra
			objs, err := manifest.Parse("inline.yaml", []byte(doc), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			m := model.Build(&manifest.Set{Objects: objs}, model.Options{Extra: map[model.GroupKind]bool{{Group: Group, Kind: KindListenerPolicy}: true}})
			p := ListenerKind{}.Decode(objs[0], &policy.Env{Model: m})
			var got []string
			for _, d := range p.Invalid {
				if d.Code != policy.LintPolicyInvalid.Code || d.Pos.Line == 0 {
					t.Errorf("finding %s at %v: want %s with a position", d.Code, d.Pos, policy.LintPolicyInvalid.Code)
				}
				got = append(got, d.Field+": "+d.Message)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("invalid (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.keys, slices.Sorted(maps.Keys(p.Values))); diff != "" {
				t.Errorf("values left (-want +got):\n%s", diff)
			}
		})
	}
}

// TestListenerPerPortSkipsInvalidSetting: a perPort entry renders its
// valid settings for its port and leaves out the one that fails (the
// policy reports it), rather than failing the whole entry.
func TestListenerPerPortSkipsInvalidSetting(t *testing.T) {
	bad := ListenerConfig{HTTPSettings: &HTTPSettings{ServerName: new("edge"), StripHostPortMode: new("Sideways")}}
	in := policy.FieldInput{Key: perPortKey(8080), Values: []any{&bad}, Contributors: []string{"gateway.kgateway.dev/ListenerPolicy/infra/lp"}}
	frs, err := ListenerKind{}.RenderField(in, &policy.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if len(frs) != 1 || frs[0].Port != 8080 || frs[0].HCM == nil {
		t.Fatalf("fragments %v: want the server name's alone, on port 8080", frs)
	}
}
