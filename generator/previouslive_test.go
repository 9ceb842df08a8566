package generator

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/wellknown-dev/wellknown/format/paths"
)

// PreviousLive compares with the feed at the site's base_url: the one
// deployed now.
func TestPreviousLiveIsTheFeedAtBaseURL(t *testing.T) {
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.Path)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	res, err := Build(Options{ConfigPath: exampleSite(t), Getenv: testEnv, PreviousLive: true,
		Overrides: []string{"base_url=" + srv.URL + "/"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "--previous " + srv.URL + paths.Feed + ": nothing published yet (the host answers 404 Not Found); the append-only check starts with the first deploy"
	if !slices.Equal(asked, []string{paths.Feed}) || !slices.Contains(res.Notices, want) {
		t.Errorf("asked for %q; notices %q; want %q", asked, res.Notices, want)
	}
}
