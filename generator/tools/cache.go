package tools

import (
	"crypto/sha256"
	"sync"

	"github.com/wellknown-dev/wellknown/internal/inputfile"
)

// Cache keeps the tool parsed from each file across loads (a development
// server's rebuilds), so that a load after an edit parses only the files
// whose bytes changed, and reads only those whose stat changed (see
// inputfile.Files). It is safe for concurrent use.
type Cache struct {
	mu     sync.Mutex
	parsed map[string]parsedFile // by the file's name in messages
	misses int
	files  *inputfile.Files
}

type parsedFile struct {
	sum  [sha256.Size]byte
	tool Tool
}

// NewCache returns an empty Cache.
func NewCache() *Cache { return &Cache{parsed: map[string]parsedFile{}, files: inputfile.NewFiles()} }

// inputs is what the cache reads the tool files through; nil without one.
func (c *Cache) inputs() *inputfile.Files {
	if c == nil {
		return nil
	}
	return c.files
}

// parse is Parse, answered from the cache when file last held the same
// bytes. Only successes are kept: an error is found again, as it is worded.
func (c *Cache) parse(file string, data []byte) (Tool, error) {
	if c == nil {
		return Parse(file, data)
	}
	sum := c.files.Sum(data)
	c.mu.Lock()
	p, ok := c.parsed[file]
	c.mu.Unlock()
	if ok && p.sum == sum {
		return p.tool, nil
	}
	t, err := Parse(file, data)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.misses++
	if err != nil {
		delete(c.parsed, file)
		return t, err
	}
	c.parsed[file] = parsedFile{sum: sum, tool: t}
	return t, nil
}

// Parsed returns how many files the cache has parsed since it was made.
func (c *Cache) Parsed() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.misses
}
