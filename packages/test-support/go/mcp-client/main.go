// A client nobody here wrote: the Go MCP SDK (github.com/modelcontextprotocol/go-sdk) against toolmesh's
// MCP endpoint.
//
// Usage: mcp-client <url> <token> <tool> <arguments-json> [<tool> <arguments-json> ...]
// Prints one JSON line: the negotiated protocol version, the server's name, the tool names listed (every
// page), and each call's result.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

type call struct {
	Tool    string   `json:"tool"`
	IsError bool     `json:"is_error"`
	Text    []string `json:"text"`
}

type report struct {
	ProtocolVersion string   `json:"protocol_version"`
	Server          string   `json:"server"`
	Tools           []string `json:"tools"`
	Calls           []call   `json:"calls"`
}

func run(url, token string, pairs []string) (*report, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "toolmesh-go-peer", Version: "1.0.0"}, nil)
	transport := &mcp.StreamableClientTransport{
		Endpoint:   url,
		HTTPClient: &http.Client{Transport: bearer{token: token, next: http.DefaultTransport}},
	}
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer session.Close()
	init := session.InitializeResult()
	out := &report{ProtocolVersion: init.ProtocolVersion, Server: init.ServerInfo.Name, Tools: []string{}, Calls: []call{}}
	for tool, err := range session.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		out.Tools = append(out.Tools, tool.Name)
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		var args map[string]any
		if err := json.Unmarshal([]byte(pairs[i+1]), &args); err != nil {
			return nil, fmt.Errorf("arguments for %s: %w", pairs[i], err)
		}
		result, err := session.CallTool(ctx, &mcp.CallToolParams{Name: pairs[i], Arguments: args})
		if err != nil {
			return nil, fmt.Errorf("tools/call %s: %w", pairs[i], err)
		}
		c := call{Tool: pairs[i], IsError: result.IsError, Text: []string{}}
		for _, content := range result.Content {
			if text, ok := content.(*mcp.TextContent); ok {
				c.Text = append(c.Text, text.Text)
			}
		}
		out.Calls = append(out.Calls, c)
	}
	return out, nil
}

func main() {
	if len(os.Args) < 3 || len(os.Args)%2 != 1 {
		fmt.Fprintln(os.Stderr, "usage: mcp-client <url> <token> [<tool> <arguments-json> ...]")
		os.Exit(2)
	}
	out, err := run(os.Args[1], os.Args[2], os.Args[3:])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	line, _ := json.Marshal(out)
	fmt.Println(string(line))
}
