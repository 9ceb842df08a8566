package cards

import (
	"net"
	"regexp"
	"strings"
)

// A2A v1.0 objects are closed: these are their members.
var (
	agentCardMembers = []string{"name", "description", "supportedInterfaces", "provider", "version", "documentationUrl",
		"capabilities", "securitySchemes", "securityRequirements", "defaultInputModes", "defaultOutputModes", "skills",
		"signatures", "iconUrl"}
	agentInterfaceMembers  = []string{"url", "protocolBinding", "protocolVersion", "tenant"}
	agentCapabilityMembers = []string{"streaming", "pushNotifications", "extendedAgentCard", "extensions"}
	agentSkillMembers      = []string{"id", "name", "description", "tags", "examples", "inputModes", "outputModes", "securityRequirements"}
)

// CheckAgentCard checks an A2A v1.0 Agent Card. The v1 JSON Schema does not
// mark required fields (the proto's REQUIRED is lost in generation), so they
// are checked here.
func CheckAgentCard(data []byte) []Problem {
	m, d := decode(data)
	if m == nil {
		return d.problems
	}
	d.closed(m, "", agentCardMembers...)
	d.str(m, "", "name", true, 1, 0)
	d.str(m, "", "description", true, 1, 0)
	d.str(m, "", "version", true, 1, 0)
	d.url(m, "", "documentationUrl", false, "https", "http")
	d.url(m, "", "iconUrl", false, "https", "http", "data")
	interfaces, paths := d.objects(m, "", "supportedInterfaces", true, 1)
	for i, in := range interfaces {
		d.agentInterface(in, paths[i])
	}
	if p := d.object(m, "", "provider", false); p != nil {
		d.closed(p, "provider", "organization", "url")
		d.str(p, "provider", "organization", true, 1, 0)
		d.url(p, "provider", "url", true, "https", "http")
	}
	if c := d.object(m, "", "capabilities", true); c != nil {
		d.closed(c, "capabilities", agentCapabilityMembers...)
		for _, k := range agentCapabilityMembers[:3] {
			d.boolean(c, "capabilities", k)
		}
	}
	d.strings(m, "", "defaultInputModes", true, 1)
	d.strings(m, "", "defaultOutputModes", true, 1)
	skills, paths := d.objects(m, "", "skills", true, 0)
	for i, s := range skills {
		d.closed(s, paths[i], agentSkillMembers...)
		for _, k := range []string{"id", "name", "description"} {
			d.str(s, paths[i], k, true, 1, 0)
		}
		d.strings(s, paths[i], "tags", true, 0)
		for _, k := range []string{"examples", "inputModes", "outputModes"} {
			d.strings(s, paths[i], k, false, 0)
		}
	}
	return d.problems
}

var hostPortPattern = regexp.MustCompile(`^[a-zA-Z0-9.-]+:\d+$`)

func (d *doc) agentInterface(in map[string]any, path string) {
	d.closed(in, path, agentInterfaceMembers...)
	binding, _ := d.str(in, path, "protocolBinding", true, 1, 0)
	d.str(in, path, "protocolVersion", true, 1, 0)
	d.str(in, path, "tenant", false, 0, 0)
	u, ok := d.str(in, path, "url", true, 1, 0)
	if !ok {
		return
	}
	// gRPC interfaces are host:port; the others are https URLs.
	if strings.EqualFold(binding, "GRPC") && hostPortPattern.MatchString(u) {
		if _, _, err := net.SplitHostPort(u); err == nil {
			return
		}
	}
	if !isURL(u, "https") {
		d.addf(at(path, "url"), "%q must be an absolute https URL", u)
	}
}
