// gofrontend is a reference frontend plugin in Go (plugins.md §6.5) for the
// interop tests: a hashicorp/go-plugin server of FrontendService only
// (GetCapabilities, Configure, Describe) that, once configured, drives a
// session through the kernel callback channel (broker ID 1): CreateSession,
// SubmitInput with the configured "prompt", ReadEvents to follow the
// transcript, ResolvePlanDecision ALLOW (scope ONCE) for every plan item
// that asks, and — once a final assistant message arrives — DetachSession
// and exit 0. Any failure exits 1 with the reason on stderr.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	commonv1 "phagent/gen/pluggableharness/common/v1"
	contentv1 "phagent/gen/pluggableharness/content/v1"
	eventv1 "phagent/gen/pluggableharness/event/v1"
	frontendv1 "phagent/gen/pluggableharness/frontend/v1"
	kernelv1 "phagent/gen/pluggableharness/kernel/v1"
	planv1 "phagent/gen/pluggableharness/plan/v1"
)

const (
	magicCookieKey   = "PLUGGABLEHARNESS_AGENT_PLUGIN"
	magicCookieValue = "pluggableharness-agent-v1-a6f3c9d2-plugin-handshake"
	appProtocol      = 1
	callbackBrokerID = 1
	deadline         = 60 * time.Second
)

type frontendPlugin struct {
	plugin.NetRPCUnsupportedPlugin
}

func (p *frontendPlugin) GRPCServer(broker *plugin.GRPCBroker, s *grpc.Server) error {
	frontendv1.RegisterFrontendServiceServer(s, &frontendServer{broker: broker})
	return nil
}

func (p *frontendPlugin) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (interface{}, error) {
	return nil, errors.New("gofrontend is a plugin, not a host")
}

type frontendServer struct {
	frontendv1.UnimplementedFrontendServiceServer
	broker  *plugin.GRPCBroker
	started bool
}

func (s *frontendServer) GetCapabilities(context.Context, *frontendv1.GetCapabilitiesRequest) (*frontendv1.GetCapabilitiesResponse, error) {
	return &frontendv1.GetCapabilitiesResponse{Capabilities: &frontendv1.FrontendCapabilities{}}, nil
}

func (s *frontendServer) Describe(context.Context, *frontendv1.DescribeRequest) (*frontendv1.DescribeResponse, error) {
	return &frontendv1.DescribeResponse{Producer: &commonv1.ProducerRef{
		Name: "gofrontend", Version: "0.1.0", Category: commonv1.Category_CATEGORY_FRONTEND,
	}}, nil
}

func (s *frontendServer) Configure(_ context.Context, req *frontendv1.ConfigureRequest) (*frontendv1.ConfigureResponse, error) {
	prompt := req.GetConfig().GetFields()["prompt"].GetStringValue()
	if prompt == "" {
		return nil, errors.New(`config attribute "prompt" is required`)
	}
	if !s.started {
		s.started = true
		go func() {
			if err := s.drive(prompt); err != nil {
				log.Printf("[ERROR] gofrontend: %v", err)
				os.Exit(1)
			}
			os.Exit(0)
		}()
	}
	return &frontendv1.ConfigureResponse{}, nil
}

func (s *frontendServer) drive(prompt string) error {
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	conn, err := s.broker.Dial(callbackBrokerID)
	if err != nil {
		return fmt.Errorf("dial the kernel callback channel: %w", err)
	}
	kernel := kernelv1.NewKernelCallbackServiceClient(conn)
	created, err := kernel.CreateSession(ctx, &kernelv1.CreateSessionRequest{})
	if err != nil {
		return fmt.Errorf("CreateSession: %w", err)
	}
	id := created.GetInfo().GetSessionId()
	log.Printf("[INFO] gofrontend: created session %s", id)
	sub, err := kernel.SubmitInput(ctx, &kernelv1.SubmitInputRequest{
		SessionId: id,
		Content: []*contentv1.ContentBlock{{Block: &contentv1.ContentBlock_Text{
			Text: &contentv1.TextBlock{Text: prompt},
		}}},
	})
	if err != nil {
		return fmt.Errorf("SubmitInput: %w", err)
	}
	log.Printf("[INFO] gofrontend: turn %s", sub.GetTurnId())
	next := int64(1)
	for {
		stream, err := kernel.ReadEvents(ctx, &kernelv1.ReadEventsRequest{SessionId: id, FromSequence: proto.Int64(next)})
		if err != nil {
			return fmt.Errorf("ReadEvents: %w", err)
		}
		got := 0
		for {
			e, err := stream.Recv()
			if err != nil {
				break // io.EOF ends the batch; other errors surface on the next call
			}
			got++
			next = e.GetSequence() + 1
			done, err := s.handle(ctx, kernel, id, e)
			if err != nil {
				return err
			}
			if done {
				if _, err := kernel.DetachSession(ctx, &kernelv1.DetachSessionRequest{SessionId: id}); err != nil {
					return fmt.Errorf("DetachSession: %w", err)
				}
				return nil
			}
		}
		if got == 0 {
			select {
			case <-ctx.Done():
				return fmt.Errorf("no final answer within %s", deadline)
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
}

// handle answers plan items that ask and reports a final assistant message.
func (s *frontendServer) handle(ctx context.Context, kernel kernelv1.KernelCallbackServiceClient, id string, e *kernelv1.StoredEvent) (bool, error) {
	switch e.GetKind() {
	case kernelv1.EventKind_EVENT_KIND_PLAN:
		var ev eventv1.PlanEvent
		if err := proto.Unmarshal(e.GetPayload(), &ev); err != nil {
			return false, fmt.Errorf("decode a plan event: %w", err)
		}
		for _, item := range ev.GetPlan().GetItems() {
			if item.GetDecision() != planv1.PlanDecision_PLAN_DECISION_ASK {
				continue
			}
			if _, err := kernel.ResolvePlanDecision(ctx, &kernelv1.ResolvePlanDecisionRequest{
				SessionId:  id,
				PlanItemId: item.GetId(),
				Decision:   planv1.ClientDecision_CLIENT_DECISION_ALLOW,
				Scope:      planv1.PlanDecisionScope_PLAN_DECISION_SCOPE_ONCE,
			}); err != nil {
				return false, fmt.Errorf("ResolvePlanDecision %s: %w", item.GetId(), err)
			}
			log.Printf("[INFO] gofrontend: allowed %s.%s", item.GetProvider(), item.GetOperationName())
		}
	case kernelv1.EventKind_EVENT_KIND_MESSAGE:
		var ev eventv1.MessageEvent
		if err := proto.Unmarshal(e.GetPayload(), &ev); err != nil {
			return false, fmt.Errorf("decode a message event: %w", err)
		}
		m := ev.GetMessage()
		if m.GetRole() != contentv1.Role_ROLE_ASSISTANT {
			return false, nil
		}
		for _, b := range m.GetContent() {
			if b.GetToolUse() != nil {
				return false, nil
			}
		}
		return true, nil
	}
	return false, nil
}

func main() {
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: plugin.HandshakeConfig{
			ProtocolVersion:  appProtocol,
			MagicCookieKey:   magicCookieKey,
			MagicCookieValue: magicCookieValue,
		},
		Plugins:    map[string]plugin.Plugin{"frontend": &frontendPlugin{}},
		GRPCServer: plugin.DefaultGRPCServer,
	})
}
