package cards

import (
	"regexp"
)

var (
	semverPattern     = regexp.MustCompile(`^\d+\.\d+\.\d+$`)
	providerPattern   = regexp.MustCompile(`^[a-z0-9_-]+$`)
	entityPathPattern = regexp.MustCompile(`^/[a-zA-Z0-9/_-]*$`)
	countryPattern    = regexp.MustCompile(`^[A-Z]{2}$`)
)

// CheckEntityCard checks an EDP entity card served by host: schema 0.1.0
// (domain + mcps) or 0.2.0 (domain + entities, each with mcps). The card's
// domain must equal the host that serves it.
func CheckEntityCard(data []byte, host string) []Problem {
	m, d := decode(data)
	if m == nil {
		return d.problems
	}
	version := d.matches(m, "", "schema_version", true, semverPattern, "a version like 0.2.0")
	if domain, ok := d.str(m, "", "domain", true, 1, 253); ok && domain != host {
		d.addf("domain", "%q must equal the host that serves the card, %q", domain, host)
	}
	if version == "0.1.0" {
		d.entityMCPs(m, "")
		return d.problems
	}
	entities, paths := d.objects(m, "", "entities", true, 1)
	for i, e := range entities {
		d.str(e, paths[i], "name", true, 1, 200)
		d.matches(e, paths[i], "path", false, entityPathPattern, "a path like /paris")
		if loc := d.object(e, paths[i], "location", false); loc != nil {
			lpath := at(paths[i], "location")
			d.str(loc, lpath, "city", false, 0, 0)
			d.matches(loc, lpath, "country", false, countryPattern, "an ISO 3166-1 alpha-2 code like FR")
			d.coordinates(loc, lpath)
		}
		d.entityMCPs(e, paths[i])
	}
	return d.problems
}

func (d *doc) coordinates(loc map[string]any, path string) {
	c := d.object(loc, path, "coordinates", false)
	if c == nil {
		return
	}
	cpath := at(path, "coordinates")
	for _, axis := range []struct {
		key   string
		limit float64
	}{{"lat", 90}, {"lng", 180}} {
		v, ok := c[axis.key].(float64)
		if !ok || v < -axis.limit || v > axis.limit {
			d.addf(at(cpath, axis.key), "must be a number between -%g and %g", axis.limit, axis.limit)
		}
	}
}

func (d *doc) entityMCPs(m map[string]any, path string) {
	mcps, paths := d.objects(m, path, "mcps", true, 1)
	for i, mcp := range mcps {
		p := paths[i]
		if d.matches(mcp, p, "provider", true, providerPattern, "lower-case letters, digits, '-' or '_'") != "" {
			d.str(mcp, p, "provider", false, 1, 100)
		}
		d.url(mcp, p, "endpoint", true, "https")
		d.str(mcp, p, "entity_id", false, 0, 200)
		d.strings(mcp, p, "capabilities", false, 0)
		if v, ok := mcp["priority"]; ok {
			if n, isNum := v.(float64); !isNum || n != float64(int(n)) || n < 0 || n > 100 {
				d.addf(at(p, "priority"), "must be an integer from 0 to 100")
			}
		}
		if v := d.object(mcp, p, "verification", false); v != nil {
			vpath := at(p, "verification")
			d.oneOf(v, vpath, "method", true, "signed_jwt")
			d.str(v, vpath, "signature", true, 1, 0)
			d.time(v, vpath, "issued_at")
			d.time(v, vpath, "expires_at")
		}
	}
}
