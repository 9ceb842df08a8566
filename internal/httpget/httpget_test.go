package httpget

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestGet(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "12345") })
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "123456") })
	mux.HandleFunc("/fail", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", http.StatusInternalServerError) })
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://forbidden.example/x", http.StatusFound)
	})
	mux.HandleFunc("/hop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/ok", http.StatusFound) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	allow := func(u string) error {
		if strings.Contains(u, "forbidden") {
			return errors.New("refused " + u)
		}
		return nil
	}
	c := New(5*time.Second, 2, 5, allow)
	defer c.CloseIdleConnections()
	for _, tc := range []struct{ path, body, err string }{
		{"/ok", "12345", ""},
		{"/hop", "12345", ""},
		{"/big", "", "larger than 5 bytes"},
		{"/fail", "", "HTTP 500 Internal Server Error"},
		{"/missing", "", ErrNotFound.Error()},
		{"/loop", "", "more than 2 redirects"},
		{"/away", "", "refused http://forbidden.example/x"},
	} {
		body, err := c.Get(context.Background(), srv.URL+tc.path)
		if got := errString(err); got != tc.err || string(body) != tc.body {
			t.Errorf("Get %s = %q, %q; want %q, %q", tc.path, body, got, tc.body, tc.err)
		}
	}
	if _, err := c.Get(context.Background(), "http://forbidden.example/"); errString(err) != "refused http://forbidden.example/" {
		t.Errorf("a URL the rule refuses was fetched: %v", err)
	}
	if _, err := c.Get(context.Background(), srv.URL+"/missing"); !errors.Is(err, ErrNotFound) {
		t.Errorf("404: %v, want ErrNotFound", err)
	}
	// Any other status is a StatusError a caller can tell apart.
	var status *StatusError
	if _, err := c.Get(context.Background(), srv.URL+"/fail"); !errors.As(err, &status) || status.Code != http.StatusInternalServerError || errors.Is(err, ErrNotFound) {
		t.Errorf("500: %v, want a StatusError with code 500 that is not ErrNotFound", err)
	}
}

func TestGetDeadline(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer srv.Close()
	defer close(release)
	c := New(100*time.Millisecond, 0, 10, func(string) error { return nil })
	if _, err := c.Get(context.Background(), srv.URL); err == nil || !strings.Contains(err.Error(), "Timeout") {
		t.Errorf("a server that never answers: %v, want a timeout", err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
