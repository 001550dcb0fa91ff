// A tool-calling agent in Node.js (no packages: the built-in fetch), replayed by harness.
// It speaks harness's JSON-lines protocol: {"user_input": ...} in, {"response": ...} out,
// and talks to the model at OPENAI_BASE_URL with OPENAI_API_KEY, as any OpenAI client would.
import { createInterface } from "node:readline";

const baseUrl = process.env.OPENAI_BASE_URL;
const apiKey = process.env.OPENAI_API_KEY;
const tools = [{
  type: "function",
  function: {
    name: "echo",
    description: "Echo back the given message.",
    parameters: { type: "object", properties: { message: { type: "string" } } },
  },
}];
const messages = [{ role: "system", content: "You are a helpful assistant." }];

function echo(argumentsJson) {
  try {
    const message = JSON.parse(argumentsJson).message;
    return typeof message === "string" ? message : "(empty)";
  } catch {
    return "(empty)";
  }
}

async function complete() {
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ model: "gpt-test", messages, tools, temperature: 0 }),
  });
  const body = await response.json();
  if (!response.ok) throw new Error(`model error ${response.status}: ${body.error?.message}`);
  return body.choices[0].message;
}

async function turn(userInput) {
  messages.push({ role: "user", content: userInput });
  for (let round = 0; round < 10; round++) {
    const message = await complete();
    messages.push(message);
    if (!message.tool_calls || message.tool_calls.length === 0) return message.content ?? "";
    for (const call of message.tool_calls) {
      messages.push({ role: "tool", tool_call_id: call.id, content: echo(call.function.arguments) });
    }
  }
  throw new Error("too many tool rounds");
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const { user_input: userInput } = JSON.parse(line);
  const response = await turn(userInput);
  process.stdout.write(JSON.stringify({ response }) + "\n");
}
