package wso2

import (
	"cmp"
	"encoding/json"
	"slices"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policyversion"
)

// Level is where in a chain a reference comes from.
type Level string

// The chain levels, in the order the policy engine runs them.
const (
	LevelSystem    Level = "system"    // config wso2.systemPolicies
	LevelAPI       Level = "api"       // RestApi spec.policies, APIPolicy with targetRef
	LevelOperation Level = "operation" // RestApi spec.operations[].policies
	LevelRule      Level = "rule"      // APIPolicy referenced by an HTTPRoute rule ExtensionRef
)

var levelRank = map[Level]int{LevelSystem: 0, LevelAPI: 1, LevelOperation: 2, LevelRule: 2}

// SourceConfig is the Source of system policies.
const SourceConfig = "config"

// Reference is one policy reference {name, version, params,
// executionCondition} with what it resolved to in the controller's policy
// definitions and in the engine build.
type Reference struct {
	Name               string          `json:"name"`
	Version            string          `json:"version"` // as written
	Params             json.RawMessage `json:"params,omitempty"`
	ExecutionCondition string          `json:"executionCondition,omitempty"`

	// Path is the reference's field path in its object (or in the config
	// file, for system policies), e.g. spec.policies[0]; Pos is where its
	// version is (the reference itself when it has none).
	Path string        `json:"-"`
	Pos  diag.Position `json:"-"`
	// ParamsPath is where Params are when not at Path.params (an LLM
	// kind's policies[i].paths[j].params).
	ParamsPath string `json:"-"`

	// Resolution is the controller's answer (Definition set when it
	// resolved); Engine the engine build's (Skipped without a manifest).
	// DefinitionsLoaded is false when no policy definitions were given, so
	// only the version's form could be checked.
	Resolution        policyversion.Resolution  `json:"-"`
	Engine            policyversion.EngineCheck `json:"-"`
	DefinitionsLoaded bool                      `json:"-"`

	// Problems are the codes of the findings about this reference.
	Problems []string `json:"problems,omitempty"`
}

func (r *Reference) paramsPath() string {
	if r.ParamsPath != "" {
		return r.ParamsPath
	}
	return r.Path + ".params"
}

// Identity is name:vN, the key controller and engine share; for a version
// that is not major-only it is name:VERSION as written.
func (r *Reference) Identity() string {
	if r.Resolution.Identity != "" {
		return r.Resolution.Identity
	}
	return r.Name + ":" + r.Version
}

// Definition is the full version the controller resolves the reference to,
// or "" (unresolved, or no definitions loaded).
func (r *Reference) Definition() string { return r.Resolution.Resolved() }

// EngineVersion is the full version the engine build holds for the
// reference's identity, or "" (missing, or no engine manifest).
func (r *Reference) EngineVersion() string { return r.Engine.Resolved() }

// Chain is one source's references at one level: the value of an
// APIPolicy's (or a RestApi's API-level) "chain" field, one RestApi
// operation, or the configured system policies.
type Chain struct {
	Level  Level        `json:"level"`
	Source string       `json:"source"` // policy ID, or "config"
	Refs   []*Reference `json:"policies"`
}

// Entry is one policy of an effective chain, the row explain shows.
type Entry struct {
	Identity           string   `json:"identity"` // name:vN
	Name               string   `json:"name"`
	Version            string   `json:"version"`              // as referenced
	Definition         string   `json:"definition,omitempty"` // full version in the controller's definitions
	Engine             string   `json:"engine,omitempty"`     // full version in the engine build
	Level              Level    `json:"level"`
	Source             string   `json:"source"`
	At                 string   `json:"at,omitempty"` // FILE:LINE:COL of the reference's version
	ExecutionCondition string   `json:"executionCondition,omitempty"`
	Problems           []string `json:"problems,omitempty"`
	// Params are the reference's params as written (valueFrom and
	// templates unresolved); views show them only when asked to.
	Params json.RawMessage `json:"params,omitempty"`
	// ListedBy and ListedAt are, when another reference runs at this
	// position, the source and field path of the one listed here: a name
	// listed twice at API level runs its last listing at every place it
	// is listed (Effective).
	ListedBy string `json:"listedBy,omitempty"`
	ListedAt string `json:"listedAt,omitempty"`
}

// Effective concatenates chains into the chain the policy engine runs:
// additive and never overriding, system policies first, then API level,
// then operation or rule level. Chains of one level keep the order given
// (the merge order of the policies, or the filter order on a rule). Nil
// chains are skipped.
//
// API-level references are keyed by name: the gateway-controller builds
// each operation's chain from a name-keyed map of the API-level
// policies (pkg/policy/builder.go: DerivePolicyFromAPIConfig,
// apiPolicies[p.Name], at 1c84e11c), so a name listed more than once at
// API level — in one object, or in two APIPolicies the operator joins in
// name order — runs its last listing (version, params, execution
// condition) at every place it is listed (GWP510 says so). Operation and
// rule levels run every reference as written.
func Effective(chains ...*Chain) []Entry {
	cs := slices.DeleteFunc(slices.Clone(chains), func(c *Chain) bool { return c == nil })
	slices.SortStableFunc(cs, func(a, b *Chain) int { return cmp.Compare(levelRank[a.Level], levelRank[b.Level]) })
	type listing struct {
		r      *Reference
		source string
	}
	lastAPI := map[string]listing{}
	for _, c := range cs {
		if c.Level == LevelAPI {
			for _, r := range c.Refs {
				if r.Name != "" {
					lastAPI[r.Name] = listing{r, c.Source}
				}
			}
		}
	}
	out := []Entry{}
	for _, c := range cs {
		for _, r := range c.Refs {
			run, source, problems := r, c.Source, r.Problems
			var listedBy, listedAt string
			if l, ok := lastAPI[r.Name]; ok && c.Level == LevelAPI && l.r != r {
				run, source, listedBy, listedAt = l.r, l.source, c.Source, r.Path
				if !slices.Contains(problems, LintDuplicateAPIPolicy.Code) {
					problems = append(slices.Clone(problems), LintDuplicateAPIPolicy.Code)
				}
			}
			out = append(out, Entry{
				Identity: run.Identity(), Name: run.Name, Version: run.Version,
				Definition: run.Definition(), Engine: run.EngineVersion(),
				Level: c.Level, Source: source, At: run.Pos.String(),
				ExecutionCondition: run.ExecutionCondition, Problems: problems, Params: run.Params,
				ListedBy: listedBy, ListedAt: listedAt,
			})
		}
	}
	return out
}

// ChainsOf reads the chain values of a merged "chain" field (as
// merge.Field.Values or policy.FieldInput.Values hold them).
func ChainsOf(values []any) []*Chain {
	var out []*Chain
	for _, v := range values {
		if c, ok := v.(*Chain); ok && c != nil {
			out = append(out, c)
		}
	}
	return out
}
