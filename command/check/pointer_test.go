package check

import "testing"

func TestPointerLine(t *testing.T) {
	doc := []byte(`{
  "name": "get_forecast",
  "inputSchema": {
    "type": "object",
    "properties": {
      "city": {"type": "string"},
      "a/b": {"enum": [
        "x",
        "y"
      ]},
      "days": {
        "type": "integer"
      }
    }
  }
}`)
	for _, tc := range []struct {
		pointer string
		want    int
	}{
		{"", 1},
		{"/name", 2},
		{"/inputSchema/properties/city", 6},
		{"/inputSchema/properties/days/type", 12},
		{"/inputSchema/properties/a~1b/enum/1", 9},
		{"/inputSchema/properties/hourly", 5}, // removed: its parent
		{"/outputSchema/properties/x", 1},
		{"/name/x", 2},
	} {
		if got := pointerLine(doc, tc.pointer); got != tc.want {
			t.Errorf("pointerLine(%q) = %d, want %d", tc.pointer, got, tc.want)
		}
	}
}
