package haptic

import "github.com/gwpol/gwpol/internal/policy"

// ControllerName is HAPTIC's controllerName.
const ControllerName = "haproxy-haptic.org/controller"

// Controller is HAPTIC, the controller of this family's kind.
var Controller = policy.Controller{Name: ControllerName, Title: "HAPTIC", RenderTarget: "haptic", Groups: []string{Group}}
