// A Node.js agent for agent_reuse (no packages: the built-in fetch). One process plays case
// after case: {"case": NAME, "workspace": PATH} starts a fresh conversation, each
// {"user_input": TEXT} is answered by one {"response": TEXT} line, {"end": NAME} closes the
// case. Without reuse there is no case line: the turns are one case, the workspace is in
// HARNESS_WORKSPACE. It writes its answer to answer.txt in the case's workspace.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
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
if (process.env.AGENT_PIDS) writeFileSync(join(process.env.AGENT_PIDS, `${process.pid}.pid`), "");

async function complete(messages) {
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ model: "gpt-test", messages, tools }),
  });
  const body = await response.json();
  if (!response.ok) throw new Error(`model error ${response.status}: ${body.error?.message}`);
  return body.choices[0].message;
}

async function turn(messages, userInput) {
  messages.push({ role: "user", content: userInput });
  for (let round = 0; round < 10; round++) {
    const message = await complete(messages);
    messages.push(message);
    if (!message.tool_calls || message.tool_calls.length === 0) return message.content ?? "";
    for (const call of message.tool_calls) {
      const text = JSON.parse(call.function.arguments).message ?? "(empty)";
      messages.push({ role: "tool", tool_call_id: call.id, content: text });
    }
  }
  throw new Error("too many tool rounds");
}

let messages = [];
let workspace = process.env.HARNESS_WORKSPACE ?? "";
for await (const line of createInterface({ input: process.stdin })) {
  const message = JSON.parse(line);
  if ("case" in message) {
    messages = []; // a fresh conversation for every case
    workspace = message.workspace;
  } else if ("user_input" in message) {
    const response = await turn(messages, message.user_input);
    if (workspace) writeFileSync(join(workspace, "answer.txt"), response);
    process.stdout.write(JSON.stringify({ response }) + "\n");
  } // {"end": NAME}: nothing to answer
}
