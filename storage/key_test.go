package storage

import (
	"errors"
	"strings"
	"testing"
)

func TestValidKey(t *testing.T) {
	tests := []struct {
		name    string
		key     string
		wantErr string // "" for a valid key
	}{
		{"a public PDF key is valid", "files/ab/cd/0123456789abcdef.pdf", ""},
		{"a cache key is valid", "cache/v1/9f86d081884c7d65", ""},
		{"dots, dashes and underscores are valid", "files/a.b-c_d.PNG", ""},
		{"a key at the length limit is valid", "files/" + strings.Repeat("a/", (MaxKeyLength-6)/2-1) + "ab", ""},
		{"an empty key is refused", "", "is empty"},
		{"a parent reference is refused", "../etc/passwd", `".."`},
		{"a parent reference inside is refused", "files/../cache/x", `".."`},
		{"two dots inside a name are refused", "files/a..pdf", `".."`},
		{"a leading slash is refused", "/files/a.pdf", "starts with a slash"},
		{"a trailing slash is refused", "files/", "ends with a slash"},
		{"an empty path element is refused", "files//a.pdf", "empty path element"},
		{"a dot path element is refused", "files/./a.pdf", `"." path element`},
		{"a space is refused", "files/a b.pdf", `' '`},
		{"a tilde, which marks internal files, is refused", "files/a.pdf~meta", `'~'`},
		{"a backslash is refused", `files\a.pdf`, `'\\'`},
		{"a percent sign is refused", "files/%2e%2e", `'%'`},
		{"a non-ASCII letter is refused", "files/é.pdf", "only A-Z a-z 0-9"},
		{"a NUL byte is refused", "files/a\x00.pdf", `'\x00'`},
		{"a key over the length limit is refused", strings.Repeat("a", MaxKeyLength+1), "more than the limit"},
		{"an over-long path element is refused", "files/" + strings.Repeat("a", maxSegmentLength+1), "path element of"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidKey(tt.key)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("ValidKey(%q) = %v; want nil", tt.key, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("ValidKey(%q) = nil; want an error saying %s", tt.key, tt.wantErr)
			}
			if !errors.Is(err, ErrInvalidKey) {
				t.Errorf("ValidKey(%q) = %v; want it to wrap ErrInvalidKey", tt.key, err)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ValidKey(%q) = %q; want it to say %s", tt.key, err, tt.wantErr)
			}
		})
	}
}

func TestIsPublic(t *testing.T) {
	tests := []struct {
		name string
		key  string
		want bool
	}{
		{"a key under files/ is public", "files/a.pdf", true},
		{"a cache key is private", "cache/a", false},
		{"the prefix alone names no object", "files/", false},
		{"a key that merely starts with the word is private", "filesystem/a.pdf", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsPublic(tt.key); got != tt.want {
				t.Errorf("IsPublic(%q) = %v; want %v", tt.key, got, tt.want)
			}
		})
	}
}

func TestStoreErrorsReadAsSentences(t *testing.T) {
	err := notFound("files/a.pdf")
	if !errors.Is(err, ErrNotFound) || errors.Is(err, ErrUnavailable) {
		t.Errorf("notFound matches the wrong sentinels: %v", err)
	}
	if got, want := err.Error(), `storage: nothing is stored under "files/a.pdf"`; got != want {
		t.Errorf("notFound = %q; want %q", got, want)
	}
	cause := errors.New("dial tcp 127.0.0.1:9000: connect: connection refused")
	err = unavailable("storage: the S3 endpoint 127.0.0.1:9000 is unreachable", cause)
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, cause) {
		t.Errorf("unavailable does not wrap both ErrUnavailable and its cause: %v", err)
	}
	if got, want := err.Error(), "storage: the S3 endpoint 127.0.0.1:9000 is unreachable: dial tcp 127.0.0.1:9000: connect: connection refused"; got != want {
		t.Errorf("unavailable = %q; want %q", got, want)
	}
}
