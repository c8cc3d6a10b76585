package agent_test

import (
	"context"
	"testing"

	"github.com/evalrun/evalrun/agent"
)

// aider086 is what aider 0.86 prints on stdout for
// `aider --yes-always --no-pretty --message … --model …` in a git
// repository: notices, the start-up announcements, a blank line, then per
// model call the reply and its usage report, then its own status lines.
const aider086 = `Analytics have been permanently disabled.
Detected dumb terminal, disabling fancy input and pretty output.

Aider v0.86.2
Main model: anthropic/claude-sonnet-4-20250514 with diff edit format, infinite output
Weak model: anthropic/claude-3-5-haiku-20241022
Git repo: .git with 42 files
Repo-map: using 4096 tokens, auto refresh
Added x.py to the chat.

Please add these files to the chat:

- ` + "`x.py`" + `

Tokens: 3.0k sent, 42 received. Cost: $0.0063 message, $0.0063 session.

x.py
I renamed the function.

x.py
` + "```python" + `
<<<<<<< SEARCH
def f():
=======
def g():
>>>>>>> REPLACE
` + "```" + `

Tokens: 12k sent, 1.2k received. Cost: $0.04 message, $0.12 session.
Applied edit to x.py
Commit abc1234 refactor: Rename f to g
You can use /undo to undo and discard each aider commit.
`

func TestAiderText(t *testing.T) {
	reply := "x.py\nI renamed the function.\n\nx.py\n```python\n<<<<<<< SEARCH\ndef f():\n=======\ndef g():\n>>>>>>> REPLACE\n```"
	tests := []struct {
		name, stdout string
		content      string
		in, out      int
		turns        int
		cost         float64
		hasCost      bool
		estimated    bool
	}{
		{name: "0.86 two calls with cost", stdout: aider086, content: reply,
			in: 15000, out: 1242, turns: 2, cost: 0.12, hasCost: true},
		// A model without a known price: no Cost part. One model, no weak
		// model ("Model:"), no git repository, no trailing newline.
		{name: "no cost", stdout: "Aider v0.72.3\nModel: ollama_chat/qwen2.5-coder with whole edit format\nGit repo: none\nRepo-map: disabled\n\nHello there.\n\nTokens: 950 sent, 7 received.",
			content: "Hello there.", in: 950, out: 7, turns: 1},
		// Both a cache write and a cache hit: the cost is on a line of
		// its own.
		{name: "cache write and hit", stdout: "Aider v0.86.1\nMain model: anthropic/claude-sonnet-4-20250514 with diff edit format, prompt cache, infinite output\nWeak model: anthropic/claude-3-5-haiku-20241022\nGit repo: .git with 1,204 files\nWarning: For large repos, consider using --subtree-only and .aiderignore\nSee: https://aider.chat/docs/faq.html#can-i-use-aider-in-a-large-mono-repo\nRepo-map: using 4096 tokens, auto refresh\nUse /help <question> for help, run \"aider --help\" to see cmd line args\n\nDone.\n\nTokens: 1.2M sent, 20k cache write, 1.1M cache hit, 2.5k received.\nCost: $1.23 message, $1.23 session.\n",
			content: "Done.", in: 1200000, out: 2500, turns: 1, cost: 1.23, hasCost: true},
		{name: "cache hit only", stdout: "Aider v0.86.1\nModel: deepseek/deepseek-chat with diff edit format, prompt cache, infinite output\nGit repo: .git with 3 files\nRepo-map: using 1024 tokens, auto refresh\n\nYes.\n\nTokens: 8.4k sent, 8.0k cache hit, 3 received. Cost: $0.00087 message, $0.00087 session.\n",
			content: "Yes.", in: 8400, out: 3, turns: 1, cost: 0.00087, hasCost: true},
		// aider 0.4x wrote the counts with thousands separators and
		// "request".
		{name: "0.4x", stdout: "Aider v0.40.6\nModels: gpt-4o with diff edit format, weak model gpt-3.5-turbo\nGit repo: .git with 12 files\nRepo-map: using 1024 tokens\nUse /help to see in-chat commands, run with --help to see cmd line args\n\nOK\n\nTokens: 1,234 sent, 56 received. Cost: $0.01 request, $0.02 session.\n",
			content: "OK", in: 1234, out: 56, turns: 1, cost: 0.02, hasCost: true},
		// No usage report (a wrapper that hides it): the tokens are
		// counted as for text, but the banner is still left out.
		{name: "no usage report", stdout: "Aider v0.86.1\nModel: gpt-4o with diff edit format\nGit repo: none\nRepo-map: disabled\n\nfour words of answer\n",
			content: "four words of answer", in: 1, out: 4, turns: 1, estimated: true},
		// A retried error followed by a reply.
		{name: "retried", stdout: "Aider v0.86.1\nModel: gpt-4o with diff edit format\nGit repo: none\nRepo-map: disabled\n\nlitellm.InternalServerError: AnthropicException - Overloaded\nThe API provider's servers are down or overloaded.\nRetrying in 0.2 seconds...\nFine.\n\nTokens: 2.0k sent, 3 received.\n",
			content: "Fine.", in: 2000, out: 3, turns: 1},
	}
	def, _ := agent.Builtin("aider")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := fake(t, "", map[string]string{"FAKE_STDOUT": tt.stdout})
			d.Format = def.Format
			res, err := runner().Run(context.Background(), d, agent.Call{Prompt: "q", Root: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if res.Content != tt.content {
				t.Errorf("content %q, want %q", res.Content, tt.content)
			}
			if res.Usage.InputTokens != tt.in || res.Usage.OutputTokens != tt.out || res.Turns != tt.turns ||
				res.CostUSD != tt.cost || res.HasCost != tt.hasCost || res.UsageEstimated != tt.estimated {
				t.Errorf("got %+v", *res)
			}
		})
	}
}

func TestAiderTextFailures(t *testing.T) {
	banner := "Aider v0.86.1\nMain model: anthropic/claude-sonnet-4-20250514 with diff edit format, infinite output\nWeak model: anthropic/claude-3-5-haiku-20241022\nGit repo: .git with 42 files\nRepo-map: using 4096 tokens, auto refresh\n\n"
	tests := []struct {
		name, stdout, stderr, exit string
		msg                        string
		code                       int
	}{
		// aider reports a failed model call and exits with status 0.
		{name: "API key missing", stdout: "Warning: anthropic/claude-sonnet-4-20250514 expects these environment variables\n- ANTHROPIC_API_KEY: Not set\nYou can skip this check with --no-show-model-warnings\n\nhttps://aider.chat/docs/llms/warnings.html\n\n" + banner +
			"litellm.AuthenticationError: AnthropicException - {\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"x-api-key header is required\"}}\nThe API provider is not able to authenticate you. Check your API key.\n",
			msg: `litellm.AuthenticationError: AnthropicException - {"type":"error","error":{"type":"authentication_error","message":"x-api-key header is required"}} (The API provider is not able to authenticate you. Check your API key.)`},
		{name: "model not found", stdout: "Warning for anthropic/claude-sonnet-9: Unknown context window size and costs, using sane defaults.\nDid you mean one of these?\n- anthropic/claude-sonnet-4-20250514\n" + banner +
			"litellm.NotFoundError: AnthropicException - {\"type\":\"error\",\"error\":{\"type\":\"not_found_error\",\"message\":\"model: claude-sonnet-9\"}}\n",
			msg: `litellm.NotFoundError: AnthropicException - {"type":"error","error":{"type":"not_found_error","message":"model: claude-sonnet-9"}}`},
		{name: "no provider", stdout: banner + "litellm.BadRequestError: LLM Provider NOT provided. Pass in the LLM provider you are trying to call. You passed model=sonnet-x\n Pass model as E.g. For 'Huggingface' inference endpoints pass in `completion(model='huggingface/starcoder',..)` Learn more: https://docs.litellm.ai/docs/providers\n",
			msg: "litellm.BadRequestError: LLM Provider NOT provided. Pass in the LLM provider you are trying to call. You passed model=sonnet-x"},
		// The error the output reports wins over the last stderr line on
		// a non-zero exit.
		{name: "error and exit 1", stdout: banner + "litellm.RateLimitError: RateLimitError: OpenAIException - You exceeded your current quota\nThe API provider has rate limited you. Try again later or check your quotas.\n",
			stderr: "Traceback (most recent call last):\nKeyboardInterrupt\n", exit: "1",
			msg: "agent 'fake' exited with status 1: litellm.RateLimitError: RateLimitError: OpenAIException - You exceeded your current quota (The API provider has rate limited you. Try again later or check your quotas.)", code: 1},
		{name: "exit 1 without a reported error", stdout: banner, stderr: "aider: error: unrecognized arguments: --no-analytic\n", exit: "2",
			msg: "agent 'fake' exited with status 2: aider: error: unrecognized arguments: --no-analytic", code: 2},
		{name: "nothing after the banner", stdout: banner,
			msg: "agent 'fake' printed no valid aider-text: nothing after aider's start-up lines"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := fake(t, "", map[string]string{"FAKE_STDOUT": tt.stdout, "FAKE_STDERR": tt.stderr, "FAKE_EXIT": tt.exit})
			d.Format = agent.FormatAiderText
			_, err := runner().Run(context.Background(), d, agent.Call{Prompt: "q", Root: t.TempDir()})
			ae := agentError(t, err)
			if ae.Error() != tt.msg || ae.ExitCode != tt.code || agent.ReasonOf(err) != "agent_error" {
				t.Errorf("got %q (exit %d, %s), want %q", ae.Error(), ae.ExitCode, agent.ReasonOf(err), tt.msg)
			}
		})
	}
}
