// An MCP server nobody here wrote: tools built with the Go MCP SDK (github.com/modelcontextprotocol/go-sdk),
// served over Streamable HTTP for toolmesh's mcp-tool service to call.
//
// Usage: mcp-server --port N [--token T]
// Tools: echo (text), weather (structured output, with its JSON as text too), fail (a tool error). With
// --token, only `Authorization: Bearer <T>` is let in (401 otherwise). Prints "go-mcp-server listening on
// <port>" once it accepts connections.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoIn struct {
	Message string `json:"message" jsonschema:"what to echo"`
}

type weatherIn struct {
	City string `json:"city" jsonschema:"the city"`
}

type weatherOut struct {
	City        string  `json:"city"`
	Temperature float64 `json:"temperature"`
	Conditions  string  `json:"conditions"`
}

func newServer() *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "go-mcp-server", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Echoes a message"},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "go-echo: " + in.Message}}}, nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "weather", Description: "Today's weather in a city"},
		func(_ context.Context, _ *mcp.CallToolRequest, in weatherIn) (*mcp.CallToolResult, weatherOut, error) {
			return nil, weatherOut{City: in.City, Temperature: 21.5, Conditions: "sunny"}, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "fail", Description: "Always fails"},
		func(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			return nil, nil, errors.New("the go tool failed on purpose")
		})
	return server
}

func main() {
	port := flag.Int("port", 0, "port to listen on (127.0.0.1)")
	token := flag.String("token", "", "bearer token required of every request")
	flag.Parse()
	server := newServer()
	var handler http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	if *token != "" {
		inner := handler
		handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer "+*token {
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			inner.ServeHTTP(w, r)
		})
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	listener, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", *port))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("go-mcp-server listening on %d\n", *port)
	log.Fatal(http.Serve(listener, mux))
}
