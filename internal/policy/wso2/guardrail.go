package wso2

import (
	"reflect"

	"github.com/gwpol/gwpol/internal/policy"
)

var (
	_ policy.ValueTyper = (*APIPolicyKind)(nil)
	_ policy.ValueTyper = (*RestAPIKind)(nil)
	_ policy.ValueTyper = (*APIKind)(nil)
)

// chainType is the value of every WSO2 kind's chain field: the level,
// the policy that set it and its policy references (policies[].name,
// version, params).
var chainType = reflect.TypeFor[*Chain]()

// FieldType implements policy.ValueTyper.
func (*APIPolicyKind) FieldType(key string) reflect.Type { return typeOfChain(key) }

// FieldType implements policy.ValueTyper.
func (*RestAPIKind) FieldType(key string) reflect.Type { return typeOfChain(key) }

// FieldType implements policy.ValueTyper.
func (*APIKind) FieldType(key string) reflect.Type { return typeOfChain(key) }

func typeOfChain(key string) reflect.Type {
	if key == FieldChain {
		return chainType
	}
	return nil
}
