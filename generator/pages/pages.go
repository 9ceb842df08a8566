// Package pages renders the site's human pages with html/template. Every
// value from config or tool schemas is untrusted text and reaches the page
// only through html/template's contextual escaping.
package pages

import (
	"bytes"
	"fmt"
	"html/template"
	"io/fs"
)

// Site is what the pages show.
type Site struct {
	Title       string
	Description string
	HomeURL     string
	CatalogURL  string
	FeedURL     string // "" when the site has no feed
	Servers     []Server
	Agents      []Agent
	Documents   []Link
}

// Server is an MCP server as the pages show it.
type Server struct {
	Name, Title, Description, Version string
	CardURL                           string
	Tools                             []Tool
}

// Tool is one tool of a server.
type Tool struct {
	Name, Title, Description string
}

// Agent is an A2A agent.
type Agent struct {
	Name, Description, Version, CardURL string
}

// Link is a titled URL.
type Link struct {
	Title, URL string
}

// page is the data of one template execution.
type page struct {
	Site      *Site
	Canonical string
}

// Render renders the pages from the templates in tfs and returns them by site path.
func Render(s *Site, tfs fs.FS) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, p := range []struct{ file, path, canonical string }{
		{"index.html", "/index.html", ""},
		{"404.html", "/404.html", "404.html"},
	} {
		body, err := render(tfs, p.file, page{Site: s, Canonical: s.HomeURL + p.canonical})
		if err != nil {
			return nil, err
		}
		out[p.path] = body
	}
	return out, nil
}

func render(tfs fs.FS, file string, data page) ([]byte, error) {
	t, err := template.ParseFS(tfs, "layout.html", file)
	if err != nil {
		return nil, fmt.Errorf("template %s: %v", file, err)
	}
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, "layout", data); err != nil {
		return nil, fmt.Errorf("template %s: %v", file, err)
	}
	return b.Bytes(), nil
}
