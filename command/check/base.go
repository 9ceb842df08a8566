package check

import (
	"errors"
	"strings"

	"github.com/wellknown-dev/wellknown/format/gitlog"
	"github.com/wellknown-dev/wellknown/internal/diag"
)

// defaultBranches are tried in order when no base is given, after the
// target branch of a GitHub pull request ($GITHUB_BASE_REF).
var defaultBranches = []string{"origin/HEAD", "main", "master", "origin/main", "origin/master"}

// findBase resolves the revision to compare with: ref itself when given,
// else the merge base of HEAD and the default branch.
func findBase(repo *gitlog.Repo, ref string, getenv func(string) string) (Base, error) {
	if ref != "" {
		commit, err := repo.Resolve(ref)
		if err != nil {
			return Base{}, err
		}
		if commit == "" {
			return Base{}, diag.Errorf("", 0, "--base %s is not a commit of this repository", ref).
				WithHint("name a branch, tag or commit; a branch of the remote may need fetching first (git fetch origin)")
		}
		return Base{Ref: ref, Commit: commit}, nil
	}
	branch, err := defaultBranch(repo, getenv)
	if err != nil {
		return Base{}, err
	}
	commit, err := repo.MergeBase("HEAD", branch)
	if errors.Is(err, gitlog.ErrNoMergeBase) {
		return Base{}, diag.Errorf("", 0, "HEAD and %s have no commit in common", branch).
			WithHint("a shallow clone may lack it: fetch the whole history (git fetch --unshallow; on GitHub Actions, fetch-depth: 0), or pass --base REF")
	}
	if err != nil {
		return Base{}, err
	}
	head, err := repo.Head()
	if err != nil {
		return Base{}, err
	}
	return Base{Ref: branch, Commit: commit, MergeBase: true, AtHead: commit == head}, nil
}

// defaultBranch returns the first candidate that names a commit.
func defaultBranch(repo *gitlog.Repo, getenv func(string) string) (string, error) {
	candidates := defaultBranches
	if target := getenv("GITHUB_BASE_REF"); target != "" {
		candidates = append([]string{"origin/" + target}, candidates...)
	}
	for _, ref := range candidates {
		commit, err := repo.Resolve(ref)
		if err != nil {
			return "", err
		}
		if commit != "" {
			return ref, nil
		}
	}
	return "", diag.Errorf("", 0, "cannot find the default branch to compare with: none of %s exists", strings.Join(candidates, ", ")).
		WithHint("pass --base REF, the branch or commit this branch will be merged into")
}
