package gitlog

import "slices"

// Log is LogEach collected, oldest first: what the tests compare.
func (r *Repo) Log(rev string, pathspecs []string) ([]Commit, error) {
	var commits []Commit
	err := r.LogEach(rev, pathspecs, func(c Commit) error {
		commits = append(commits, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Reverse(commits)
	return commits, nil
}

// ReadEach is ReadStream of the names in ids.
func (b *Blobs) ReadEach(ids []string, fn func(id string, data []byte) error) error {
	queue := make(chan string, len(ids))
	for _, id := range ids {
		queue <- id
	}
	close(queue)
	return b.ReadStream(queue, fn)
}
