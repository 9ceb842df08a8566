package tools

import (
	"crypto/sha256"
	"sync"

	"github.com/wellknown-dev/wellknown/internal/inputfile"
)

// Cache keeps the tool parsed from each file across loads (a development
// server's rebuilds), so that a load after an edit parses only the files
// whose bytes changed, and reads only those whose stat changed (see
// inputfile.Files). What a load no longer reads goes at its Sweep. It is
// safe for concurrent use.
type Cache struct {
	mu         sync.Mutex
	parsed     map[string]parsedFile // by the file's name in messages
	sinceSweep map[string]bool       // the files parsed or reused since the last Sweep
	misses     int
	files      *inputfile.Files
}

type parsedFile struct {
	sum  [sha256.Size]byte
	tool Tool
}

// NewCache returns an empty Cache.
func NewCache() *Cache {
	return &Cache{parsed: map[string]parsedFile{}, sinceSweep: map[string]bool{}, files: inputfile.NewFiles()}
}

// Sweep forgets the tool files not loaded since the last Sweep (a file
// deleted or renamed), read or parsed: a development server's build sweeps
// once it has loaded every server's tools, so that the cache holds the
// tools the site has now, not every tool file it ever had.
func (c *Cache) Sweep() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for file := range c.parsed {
		if !c.sinceSweep[file] {
			delete(c.parsed, file)
		}
	}
	clear(c.sinceSweep)
	c.files.Sweep()
}

// parse is Parse, answered from the cache when file last held the same
// bytes. Only successes are kept: an error is found again, as it is worded.
func (c *Cache) parse(file string, data []byte) (Tool, error) {
	sum := c.files.Sum(data)
	c.mu.Lock()
	p, ok := c.parsed[file]
	c.mu.Unlock()
	if ok && p.sum == sum {
		c.mu.Lock()
		c.sinceSweep[file] = true
		c.mu.Unlock()
		return p.tool, nil
	}
	t, err := Parse(file, data)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.misses++
	c.sinceSweep[file] = true
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
