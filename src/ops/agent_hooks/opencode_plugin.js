// git-fabro for OpenCode: written by `git fabro hooks install --opencode`, removed by
// `git fabro hooks uninstall --opencode`. OpenCode has plugins where other agents have hook
// settings, so this plugin runs git-fabro's agent hooks with the JSON they read: `agent-prompt`
// when a prompt goes to the model, `agent-edit` before a tool that writes files, `agent-turn`
// when the session goes idle (its turn ended), with the session's messages as its transcript.
// A subagent's session counts as the session that started it.
//
// Every hook runs synchronously: `opencode run` exits once the session is idle without waiting
// for a plugin's asynchronous work, so a hook left running would record the turn late, or not
// at all. A hook never stops OpenCode: git-fabro exits 0 and says on stderr what went wrong.
// A turn's transcript is handed over in OpenCode's data folder, the only place git-fabro reads
// an OpenCode transcript from.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { homedir } from "node:os"
import { join } from "node:path"

const COMMAND = "git fabro hooks run agent-"
// OpenCode's tools that write files; `bash` can write anything.
const WRITERS = new Set(["edit", "write", "multiedit", "patch", "apply_patch", "bash"])

export const GitFabro = async ({ client, directory }) => {
  const run = (hook, payload) => {
    try {
      Bun.spawnSync(`${COMMAND}${hook} opencode`.split(" "), {
        cwd: directory,
        stdin: new TextEncoder().encode(JSON.stringify(payload)),
        stdout: "ignore",
        stderr: "inherit",
      })
    } catch (err) {
      console.error(`git-fabro: cannot run git fabro: ${err}`)
    }
  }
  const roots = new Map()
  const rootOf = async (id) => {
    if (!roots.has(id)) {
      let root = id
      try {
        const parent = (await client.session.get({ path: { id } })).data?.parentID
        if (parent) root = await rootOf(parent)
      } catch {}
      roots.set(id, root)
    }
    return roots.get(id)
  }
  const event = (name, session) => ({ hook_event_name: name, session_id: session, cwd: directory })

  return {
    "chat.message": async (input, output) => {
      if ((await rootOf(input.sessionID)) !== input.sessionID) return
      const prompt = (output.parts ?? [])
        .filter((part) => part.type === "text" && !part.synthetic)
        .map((part) => part.text)
        .join("\n")
      run("prompt", { ...event("UserPromptSubmit", input.sessionID), prompt })
    },
    "tool.execute.before": async (input, output) => {
      if (!WRITERS.has(input.tool)) return
      const args = output.args ?? {}
      const toolInput = {}
      if (typeof args.filePath === "string") toolInput.file_path = args.filePath
      const command = args.command ?? args.patchText ?? args.patch
      if (typeof command === "string") toolInput.command = command
      run("edit", {
        ...event("PreToolUse", await rootOf(input.sessionID)),
        tool_name: input.tool,
        tool_input: toolInput,
        tool_use_id: input.callID,
      })
    },
    event: async ({ event: happened }) => {
      if (happened.type !== "session.idle") return
      const id = happened.properties.sessionID
      if ((await rootOf(id)) !== id) return
      const payload = event("Stop", id)
      let dir
      try {
        const messages = await client.session.messages({ path: { id } })
        const data = process.env.XDG_DATA_HOME || join(homedir(), ".local", "share")
        const turns = join(data, "opencode", "git-fabro")
        mkdirSync(turns, { recursive: true, mode: 0o700 })
        dir = mkdtempSync(join(turns, "turn-"))
        payload.transcript_path = join(dir, "transcript.json")
        writeFileSync(payload.transcript_path, JSON.stringify(messages.data ?? messages, null, 1))
      } catch (err) {
        console.error(`git-fabro: the turn is recorded without its transcript: ${err}`)
      }
      run("turn", payload)
      if (dir) rmSync(dir, { recursive: true, force: true })
    },
  }
}
