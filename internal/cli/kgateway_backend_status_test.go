package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKgatewayBackendStatus: kgateway writes Accepted on each of its
// Backends from the errors its backend plugin collects building the
// Backend (buildTranslateFunc → pluginutils.BuildCondition), whichever
// routes use it; status writes it and lint reports a refusal (GWP221).
func TestKgatewayBackendStatus(t *testing.T) {
	for _, tc := range []struct {
		name    string
		spec    string // the Backend's spec, in flow style
		extra   string // other objects in the input
		config  string // .gwpol.yaml, "" for none
		message string // the Accepted message; "Backend accepted" when accepted
	}{
		{name: "static hosts", spec: "{static: {hosts: [{host: a.example.com, port: 8080}, {host: 10.0.0.1, port: 80}]}}", message: "Backend accepted"},
		{name: "a static host without a port", spec: "{static: {hosts: [{host: a.example.com, port: 80}, {host: b.example.com, port: 0}]}}",
			message: `Backend error: "port cannot be empty for host"`},
		{name: "dynamic forward proxy", spec: "{dynamicForwardProxy: {enableTls: true}}", message: "Backend accepted"},
		{name: "gcp", spec: "{gcp: {host: svc.run.app}}", message: "Backend accepted"},
		{name: "lambda with its default endpoint", spec: `{aws: {accountId: "000000000000", lambda: {functionName: fn}}}`, message: "Backend accepted"},
		{name: "lambda endpointURL without a port", spec: `{aws: {accountId: "000000000000", lambda: {functionName: fn, endpointURL: "https://lambda.local"}}}`,
			message: `Backend error: "failed to parse port: strconv.ParseUint: parsing "": invalid syntax"`},
		{name: "lambda endpointURL with its port", spec: `{aws: {accountId: "000000000000", lambda: {functionName: fn, endpointURL: "http://lambda.local:9001"}}}`, message: "Backend accepted"},
		{name: "lambda credentials Secret not found", spec: `{aws: {accountId: "000000000000", auth: {type: Secret, secretRef: {name: creds}}, lambda: {functionName: fn}}}`,
			message: `Backend error: "Secret apps/creds not found"`},
		{name: "lambda credentials Secret in another namespace: not looked for there", spec: `{aws: {accountId: "000000000000", auth: {type: Secret, secretRef: {name: creds}}, lambda: {functionName: fn}}}`,
			extra: "apiVersion: v1\nkind: Secret\nmetadata: {name: creds, namespace: other}\nstringData: {accessKey: a, secretKey: s}\n", message: `Backend error: "Secret apps/creds not found"`},
		{name: "lambda credentials Secret without secretKey", spec: `{aws: {accountId: "000000000000", auth: {type: Secret, secretRef: {name: creds}}, lambda: {functionName: fn}}}`,
			extra:   "apiVersion: v1\nkind: Secret\nmetadata: {name: creds, namespace: apps}\nstringData: {accessKey: a, sessionToken: t}\n",
			message: `Backend error: "failed to create aws request signing config: failed to derive static secret: secret_key is not a valid string"`},
		{name: "lambda credentials Secret with both keys", spec: `{aws: {accountId: "000000000000", auth: {type: Secret, secretRef: {name: creds}}, lambda: {functionName: fn}}}`,
			extra: "apiVersion: v1\nkind: Secret\nmetadata: {name: creds, namespace: apps}\nstringData: {accessKey: a, secretKey: s}\n", message: "Backend accepted"},
		{name: "lambda credentials Secret with metadata only: not checked", spec: `{aws: {accountId: "000000000000", auth: {type: Secret, secretRef: {name: creds}}, lambda: {functionName: fn}}}`,
			extra: "apiVersion: v1\nkind: Secret\nmetadata: {name: creds, namespace: apps}\n", message: "Backend accepted"},
		{name: "lambda assuming a role", spec: `{aws: {accountId: "000000000000", auth: {type: AssumeRole, assumeRole: {roleArn: "arn:aws:iam::000000000000:role/r"}}, lambda: {functionName: fn}}}`, message: "Backend accepted"},
		{name: "priority groups of Backends that exist", spec: "{priorityGroups: [{backendRefs: [{name: a}, {name: b}]}, {backendRefs: [{name: a}]}]}",
			extra: staticBackends("a", "b"), message: "Backend accepted"},
		{name: "a priority group naming a Backend not found", spec: "{priorityGroups: [{backendRefs: [{name: a}, {name: gone}]}]}",
			extra: staticBackends("a"), message: `Backend error: "priority group 0: backend "gone" not found"`},
		{name: "an empty priority group and a nested one: every error", spec: "{priorityGroups: [{backendRefs: []}, {backendRefs: [{name: pg}]}]}",
			extra:   staticBackends() + "apiVersion: gateway.kgateway.dev/v1alpha1\nkind: Backend\nmetadata: {name: pg, namespace: apps}\nspec: {priorityGroups: [{backendRefs: [{name: be}]}]}\n",
			message: `Backend has 2 errors: "priority group 0: backendRefs must not be empty" "priority group 1: backend "pg" is itself a priority groups backend; nested priority groups are not supported"`},
		{name: "ec2 with discovery off (the default)", spec: `{aws: {accountId: "000000000000", ec2: {}}}`,
			message: `Backend error: "aws ec2 discovery is disabled by controller settings"`},
		{name: "ec2 with discovery on", spec: `{aws: {accountId: "000000000000", ec2: {}}}`, config: "enableAwsEc2Discovery: true\n", message: "Backend accepted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: kgw}\nspec: {controllerName: kgateway.dev/kgateway}\n" +
				"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: apps}\nspec:\n  gatewayClassName: kgw\n  listeners: [{name: http, protocol: HTTP, port: 80}]\n" +
				"---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: Backend\nmetadata: {name: be, namespace: apps}\nspec: " + tc.spec + "\n"
			if tc.extra != "" {
				in += "---\n" + tc.extra
			}
			dir := t.TempDir()
			path := filepath.Join(dir, "in.yaml")
			if err := os.WriteFile(path, []byte(in), 0o600); err != nil {
				t.Fatal(err)
			}
			args := []string{"-f", path}
			if tc.config != "" {
				cfg := filepath.Join(dir, ".gwpol.yaml")
				if err := os.WriteFile(cfg, []byte(tc.config), 0o600); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--config", cfg)
			}
			out, errOut, code := run(t, append([]string{"status", "-o", "json"}, args...)...)
			if code != 0 {
				t.Fatalf("status: exit %d: %s", code, errOut)
			}
			var rep struct {
				Objects []struct {
					Kind, Name string
					Conditions []struct{ Type, Status, Reason, Message string }
				}
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range rep.Objects {
				if o.Kind == "Backend" && o.Name == "be" {
					for _, c := range o.Conditions {
						got = append(got, c.Type+"="+c.Status+"/"+c.Reason+" "+c.Message)
					}
				}
			}
			want := "Accepted=True/Accepted Backend accepted"
			if tc.message != "Backend accepted" {
				want = "Accepted=False/Invalid " + tc.message
			}
			if len(got) != 1 || got[0] != want {
				t.Errorf("Backend conditions %q, want [%q]", got, want)
			}
			lint, _, _ := run(t, append([]string{"lint"}, args...)...)
			if refused := tc.message != "Backend accepted"; strings.Contains(lint, "GWP221") != refused {
				t.Errorf("lint reports GWP221: %v, want %v:\n%s", !refused, refused, lint)
			}
		})
	}
}

// staticBackends are static kgateway Backends of namespace apps, each
// document ending with a separator (none when no names are given).
func staticBackends(names ...string) string {
	var b strings.Builder
	for _, n := range names {
		b.WriteString("apiVersion: gateway.kgateway.dev/v1alpha1\nkind: Backend\nmetadata: {name: " + n + ", namespace: apps}\nspec: {static: {hosts: [{host: " + n + ".example.com, port: 80}]}}\n---\n")
	}
	return b.String()
}
