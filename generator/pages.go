package generator

import (
	"github.com/wellknown-dev/wellknown/generator/pages"
	"github.com/wellknown-dev/wellknown/templates"
)

const typeHTML = "text/html; charset=utf-8"

// addPages renders the human pages.
func (r *Result) addPages(servers []Server) error {
	s := &pages.Site{
		Title:       r.Config.Title,
		Description: r.Config.Description,
		HomeURL:     r.Config.URL("/"),
		CatalogURL:  r.Config.URL(PathCatalog),
	}
	for _, srv := range servers {
		ps := pages.Server{
			Name:        srv.Config.Name,
			Title:       displayName(srv.Config.Title, srv.Config.Name),
			Description: srv.Config.Description,
			Version:     srv.Config.Version,
			CardURL:     r.Config.URL(ServerCardPath(srv.Config.Slug)),
		}
		for _, t := range srv.Tools {
			ps.Tools = append(ps.Tools, pages.Tool{Name: t.Name, Title: t.Title(), Description: t.Description()})
		}
		s.Servers = append(s.Servers, ps)
	}
	for _, a := range r.Config.Agents {
		s.Agents = append(s.Agents, pages.Agent{Name: a.Name, Description: a.Description, Version: a.Version, CardURL: r.Config.URL(AgentCardPath(a.Slug))})
	}
	for _, f := range r.Bundle.Files() {
		s.Documents = append(s.Documents, pages.Link{Title: f.Path, URL: r.Config.URL(f.Path)})
	}
	rendered, err := pages.Render(s, templates.FS)
	if err != nil {
		return err
	}
	for path, body := range rendered {
		if err := r.Bundle.Add(path, body, typeHTML); err != nil {
			return err
		}
	}
	return nil
}
