import VivariumRuntime

/// The page a browser tab loads, compiled into the binary: its HTML, its one
/// script and its style sheet.
///
/// The script builds the elements the session sends (``PageNode``) and
/// applies the changes it sends next (``PageChange``); it knows nothing of
/// view trees. It creates only the tags and attributes of ``PageNode``'s
/// two lists (written into it from them), and sets every plugin's and
/// person's text as text (`textContent`, `value`), never as markup; the page
/// allows no inline script and nothing from another origin (``WebApp``'s
/// Content-Security-Policy).
enum PageAssets {
  /// The page, whatever the path (the path is the deep link the session opens).
  static let html = """
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Vivarium</title>
    <link rel="stylesheet" href="/app.css">
    <script src="/app.js" defer></script>
    </head>
    <body>
    <header>
    <h1 id="app-title">Vivarium</h1>
    <p id="status" role="status" aria-live="polite">Connecting…</p>
    <button type="button" id="plugins-button" data-open="\(PluginsScreen.urn)">Plugins</button>
    <button type="button" id="settings-button" data-open="\(SettingsScreen.urn)">Settings</button>
    <button type="button" id="log-button" data-open="\(LogScreen.urn)">Log</button>
    <button type="button" id="keys-button" aria-haspopup="dialog" aria-keyshortcuts="?">Keys</button>
    </header>
    <main id="screen"></main>
    <div id="notices" role="status" aria-live="polite"></div>
    <div id="errors" role="alert"></div>
    <form id="command-line" hidden>
    <label for="command">Command</label>
    <input id="command" autocomplete="off" spellcheck="false" aria-describedby="command-help" list="command-ids">
    <datalist id="command-ids"></datalist>
    <span id="command-help" class="muted">Enter runs it, Esc closes. Commands: \(WebTab.allowed.map(\.rawValue).sorted().joined(separator: ", ")).</span>
    </form>
    <dialog id="alert" aria-labelledby="alert-title"><h2 id="alert-title"></h2><p id="alert-message"></p><div class="actions"></div></dialog>
    <dialog id="keys" aria-labelledby="keys-title">
    <h2 id="keys-title">Keys</h2>
    <dl>
    <dt>Tab, Shift+Tab</dt><dd>move between controls</dd>
    <dt>Enter</dt><dd>press the button; in a field, go to the next control</dd>
    <dt>↑ ↓</dt><dd>move in a list; Enter selects the row</dd>
    <dt>Esc</dt><dd>leave a field; else go back, or close the dialog on top</dd>
    <dt>:</dt><dd>the command line (tap, type, select, open, back…)</dd>
    <dt>?</dt><dd>these keys</dd>
    <dt>Browser back and forward</dt><dd>back and forward in the app</dd>
    </dl>
    <section id="screen-commands" hidden>
    <h3>Commands of this screen</h3>
    <p class="muted">Press the key outside a field, or type the command on the command line.</p>
    <dl id="screen-command-list"></dl>
    </section>
    <form method="dialog"><button>Close</button></form>
    </dialog>
    <noscript>This app needs JavaScript.</noscript>
    </body>
    </html>

    """

  /// The style sheet: focus always visible, stacks as flex boxes, tones as colours and words.
  static let css = """
    body { font-family: system-ui, sans-serif; margin: 0; color: #1b1b1b; background: #fafafa; }
    header { display: flex; gap: 1rem; align-items: baseline; padding: .5rem 1rem; background: #233; color: #fff; }
    header h1 { font-size: 1.1rem; margin: 0; }
    header p { margin: 0; opacity: .9; flex: 1; }
    header button { background: #344; color: #fff; border: 1px solid #899; }
    main { padding: 1rem; max-width: 60rem; }
    .stack { display: flex; gap: .5rem; }
    .vertical { flex-direction: column; align-items: flex-start; }
    .horizontal { flex-direction: row; flex-wrap: wrap; align-items: center; }
    section.module { padding-left: .75rem; margin: .25rem 0; width: 100%; box-sizing: border-box; }
    .slot > section.module { border-left: 3px solid #9ab; }
    .modal { position: fixed; inset: 3rem 2rem auto 2rem; width: auto; max-width: 50rem; margin: auto; padding: 1rem;
      background: #fff; border: 1px solid #678; box-shadow: 0 .5rem 2rem #0005; }
    [inert] { opacity: .55; }
    [role=listbox] { list-style: none; padding: 0; margin: 0; min-width: 20rem; border: 1px solid #bbb; background: #fff; }
    [role=option] { display: flex; gap: 1rem; padding: .25rem .5rem; cursor: pointer; }
    [role=option] .title { flex: 1; }
    [role=option].active { background: #dde8f0; outline: 2px solid #0a5ad4; outline-offset: -2px; }
    .muted { color: #555; }
    .info { color: #035; }
    .positive { color: #063; }
    .warning { color: #740; }
    .negative { color: #900; }
    .notice { padding: .25rem .5rem; border-left: 4px solid currentColor; }
    :focus-visible { outline: 3px solid #0a5ad4; outline-offset: 2px; }
    button { font: inherit; padding: .25rem .75rem; }
    label.field { display: flex; gap: .5rem; align-items: center; }
    #errors p { color: #900; }
    .actions { display: flex; gap: .5rem; }
    #errors, #notices { padding: 0 1rem; }
    #command-line { position: fixed; bottom: 0; left: 0; right: 0; display: flex; gap: .5rem; align-items: center;
      padding: .5rem 1rem; background: #eef; border-top: 1px solid #99a; }
    #command-line[hidden] { display: none; }
    #command { flex: 1; font-family: ui-monospace, monospace; }
    dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
    dt { font-weight: bold; }
    dd { margin: 0; }

    """

  /// The script: connects the tab's session, builds and changes the page as
  /// it is told, sends what the person does, keeps the address bar and the
  /// browser's history on the app's deep link, and connects again when the
  /// connection drops.
  static let script = #"""
    "use strict";
    (() => {
      const TAGS = new Set(\#(json(PageNode.Tag.allCases.map(\.rawValue))));
      const ATTRIBUTES = new Set(\#(json(PageNode.Attribute.allCases.map(\.rawValue))));
      const screen = document.getElementById("screen");
      const status = document.getElementById("status");
      const notices = document.getElementById("notices");
      const errors = document.getElementById("errors");
      const alertDialog = document.getElementById("alert");
      const keysDialog = document.getElementById("keys");
      const commandLine = document.getElementById("command-line");
      const commandInput = document.getElementById("command");
      const commandIDs = document.getElementById("command-ids");
      const screenCommands = document.getElementById("screen-commands");
      const screenCommandList = document.getElementById("screen-command-list");
      // The commands the modules on screen offer: the keys help lists them,
      // the command line completes their ids, and their keys run them.
      let commands = [];
      let socket = null;
      let retry = 250;
      let hostStatus = "";
      let depth = 0;
      // A move of the browser's history the page made itself, not the person.
      let ownMove = false;
      let tab = sessionStorage.getItem("vivarium-tab");

      const text = (tag, value, attributes) => {
        const node = document.createElement(tag);
        for (const [name, v] of Object.entries(attributes || {})) node.setAttribute(name, v);
        node.textContent = value;
        return node;
      };
      const send = (line) => {
        if (socket && socket.readyState === 1) {
          notices.replaceChildren();
          socket.send(line);
        }
      };
      // Addresses and text go as one session line each: `tap ADDRESS`, `type ADDRESS TEXT`.
      const oneLine = (value) => value.replace(/[\r\n]/g, " ");

      // The value of a field: not while the person types in it (their
      // keystrokes are on their way, and an update may still carry the
      // value from before them).
      const setValue = (element, value) => {
        if (element.value === value || document.activeElement === element) return;
        element.value = value;
      };

      const setAttribute = (element, name, value) => {
        if (!ATTRIBUTES.has(name)) throw new Error("attribute not allowed: " + name);
        if (value === null) element.removeAttribute(name);
        else element.setAttribute(name, value);
        if (element.tagName === "INPUT") {
          if (name === "value") setValue(element, value === null ? "" : value);
          if (name === "data-length" && value === "0") element.value = "";
        }
      };

      const build = (node) => {
        if (!TAGS.has(node.t)) throw new Error("element not allowed: " + node.t);
        const element = document.createElement(node.t);
        for (const [name, value] of Object.entries(node.a || {})) setAttribute(element, name, value);
        if (node.x !== undefined) element.textContent = node.x;
        for (const child of node.c || []) element.append(build(child));
        return element;
      };

      const at = (path) => {
        let element = screen.firstElementChild;
        for (const index of path) {
          element = element && element.children[index];
        }
        if (!element) throw new Error("no element at " + JSON.stringify(path));
        return element;
      };

      const focusedAddress = () => {
        const active = document.activeElement;
        if (!active || !screen.contains(active)) return null;
        return active.getAttribute("data-address");
      };

      const refocus = (address) => {
        if (!address || (document.activeElement && screen.contains(document.activeElement))) return;
        const again = screen.querySelector('[data-address="' + CSS.escape(address) + '"]');
        if (again) again.focus();
      };

      const apply = (change) => {
        const element = at(change.at);
        if (change.node !== undefined) element.replaceWith(build(change.node));
        else if (change.text !== undefined) element.textContent = change.text;
        else if (change.attributes !== undefined) {
          for (const [name, value] of Object.entries(change.attributes)) setAttribute(element, name, value);
        } else if (change.splice !== undefined) {
          const [index, remove, insert] = change.splice;
          for (let count = 0; count < remove; count++) element.children[index].remove();
          const before = element.children[index] || null;
          for (const node of insert) element.insertBefore(build(node), before);
        }
      };

      // The top modal gets the focus when it opens.
      const focusModal = () => {
        const modals = screen.querySelectorAll('dialog.modal');
        const top = modals[modals.length - 1];
        if (top && !top.contains(document.activeElement)) {
          const first = top.querySelector("button,input,[tabindex]");
          if (first) first.focus();
        }
      };

      // The app's deep link in the address bar. A deeper stack is a new
      // entry of the browser's history; a shallower one goes back one entry
      // when the page made the one it is on (`below` counts those under it).
      let pendingPath = null;
      const follow = (link, newDepth) => {
        const path = "/" + encodeURI(link).replace(/\?/g, "%3F").replace(/#/g, "%23");
        const below = history.state && history.state.below > 0 ? history.state.below : 0;
        if (history.state && newDepth > depth && location.pathname !== path) {
          history.pushState({ depth: newDepth, below: below + 1 }, "", path);
        } else if (history.state && newDepth < depth && below > 0) {
          ownMove = true;
          pendingPath = [path, { depth: newDepth, below: below - 1 }];
          history.back();
        } else if (location.pathname !== path || !history.state || history.state.depth !== newDepth) {
          history.replaceState({ depth: newDepth, below: below }, "", path);
        }
        depth = newDepth;
      };

      window.addEventListener("popstate", (event) => {
        if (ownMove) {
          ownMove = false;
          if (pendingPath) history.replaceState(pendingPath[1], "", pendingPath[0]);
          pendingPath = null;
          return;
        }
        // The person went back or forward: so does the app.
        const target = event.state ? event.state.depth : 1;
        if (target < depth) {
          for (let step = target; step < depth; step++) send("back");
        } else {
          const link = decodeURIComponent(location.pathname.slice(1));
          if (link) send("open " + oneLine(link));
        }
      });

      // The alert or question shown; built again only when it changes, so
      // that the focus stays on its button while other updates come.
      let shownAlert = "null";
      const showAlert = (alert) => {
        const key = JSON.stringify(alert || null);
        if (key === shownAlert && (alert === null || alertDialog.open)) return;
        shownAlert = key;
        if (!alert) {
          if (alertDialog.open) alertDialog.close();
          return;
        }
        document.getElementById("alert-title").textContent = alert.title;
        document.getElementById("alert-message").textContent = alert.message;
        const actions = alertDialog.querySelector(".actions");
        actions.replaceChildren();
        const ok = text("button", alert.choice ? alert.choice.confirm : "OK", { type: "button", "data-answer": "ok" });
        actions.append(ok);
        if (alert.choice) actions.append(text("button", alert.choice.cancel, { type: "button", "data-answer": "cancel" }));
        if (!alertDialog.open) alertDialog.showModal();
        ok.focus();
      };

      const show = (update) => {
        if (update.takenOver) {
          retry = -1;
          status.textContent = "This tab's session was opened in another tab. Reload to continue it here.";
          return;
        }
        if (update.tab) {
          tab = update.tab;
          sessionStorage.setItem("vivarium-tab", tab);
        }
        if (update.status) hostStatus = " · " + update.status;
        const focused = focusedAddress();
        if (update.page) screen.replaceChildren(build(update.page));
        for (const change of update.changes || []) apply(change);
        refocus(focused);
        focusModal();
        // A new screen, or the focused control gone: the first control has
        // the focus, as in the terminal app.
        const active = document.activeElement;
        if (!active || active === document.body) {
          const first = screen.querySelector("input,button,[role=listbox]");
          if (first && !first.closest("[inert]")) first.focus();
        }
        if (update.link !== undefined) follow(update.link, update.depth);
        // A notice stays until newer ones come, or the person acts (send).
        if (update.notices && update.notices.length > 0) {
          notices.replaceChildren(...update.notices.map((notice) => text("p", notice.text, { class: "notice " + notice.tone })));
        }
        errors.replaceChildren(...(update.errors || []).map((error) => text("p", error)));
        showAlert(update.alert);
        showCommands(update.commands || []);
      };

      const showCommands = (offered) => {
        commands = offered;
        screenCommands.hidden = offered.length === 0;
        screenCommandList.replaceChildren(...offered.flatMap((command) => [
          text("dt", command.key || (command.conflict ? "—" : ":" + command.id), { "data-command": command.id }),
          text("dd", command.title + " (:" + command.id + ", " + command.plugin + ")"
            + (command.conflict ? "; conflicting: " + command.conflict : "")),
        ]));
        commandIDs.replaceChildren(...offered.map((command) => {
          const option = document.createElement("option");
          option.value = command.id;
          option.textContent = command.title;
          return option;
        }));
      };
      // The command whose key the key event is: a character alone, or Ctrl and a letter.
      const commandFor = (event) => {
        if (event.altKey || event.metaKey) return null;
        const key = event.ctrlKey
          ? (/^[a-z]$/i.test(event.key) ? "\#(HostKeys.controlPrefix)" + event.key.toUpperCase() : null)
          : event.key;
        return commands.find((command) => command.key && command.key === key) || null;
      };

      // What the person does, for every element the session sends.
      screen.addEventListener("click", (event) => {
        const button = event.target.closest("button[data-address]");
        if (button) return send("tap " + button.getAttribute("data-address"));
        const row = event.target.closest("[data-row]");
        const list = row && row.closest("[role=listbox][data-address]");
        if (list) send("select " + list.getAttribute("data-address") + " " + row.getAttribute("data-row"));
      });
      screen.addEventListener("input", (event) => {
        const field = event.target.closest("input[data-address]");
        if (field) send("type " + field.getAttribute("data-address") + " " + oneLine(field.value));
      });
      screen.addEventListener("keydown", (event) => {
        const field = event.target.closest("input[data-address]");
        if (field && event.key === "Enter") {
          // To the next control, as in the terminal app.
          const controls = [...screen.querySelectorAll("input,button,[role=listbox]")].filter((c) => !c.closest("[inert]"));
          const next = controls[controls.indexOf(field) + 1];
          if (next) next.focus();
          event.preventDefault();
          return;
        }
        const list = event.target.closest("[role=listbox]");
        if (!list) return;
        const options = [...list.querySelectorAll("[role=option]")];
        let active = options.findIndex((option) => option.classList.contains("active"));
        if (event.key === "ArrowDown" || event.key === "ArrowUp") {
          active = Math.max(0, Math.min(options.length - 1, active + (event.key === "ArrowDown" ? 1 : -1)));
          options.forEach((option, index) => {
            option.classList.toggle("active", index === active);
            option.setAttribute("aria-selected", String(index === active));
          });
          if (options[active]) {
            list.setAttribute("aria-activedescendant", options[active].id);
            options[active].scrollIntoView({ block: "nearest" });
          }
          event.preventDefault();
        } else if ((event.key === "Enter" || event.key === " ") && options[active]) {
          send("select " + list.getAttribute("data-address") + " " + options[active].getAttribute("data-row"));
          event.preventDefault();
        }
      });

      alertDialog.addEventListener("click", (event) => {
        const answer = event.target.closest("[data-answer]");
        if (answer) send(answer.getAttribute("data-answer"));
      });
      alertDialog.addEventListener("cancel", (event) => { event.preventDefault(); send("cancel"); });
      document.getElementById("keys-button").addEventListener("click", () => keysDialog.showModal());
      // The app's own screens (plugins, settings), opened as a link is.
      for (const button of document.querySelectorAll("header [data-open]")) {
        button.addEventListener("click", () => send("open " + button.getAttribute("data-open")));
      }

      const openCommandLine = () => {
        commandLine.hidden = false;
        commandInput.value = "";
        commandInput.focus();
      };
      const closeCommandLine = () => {
        commandLine.hidden = true;
        refocus(null);
      };
      commandLine.addEventListener("submit", (event) => {
        event.preventDefault();
        if (commandInput.value.trim()) send(oneLine(commandInput.value.trim()));
        closeCommandLine();
      });
      commandInput.addEventListener("keydown", (event) => {
        if (event.key === "Escape") {
          closeCommandLine();
          event.preventDefault();
        }
      });

      document.addEventListener("keydown", (event) => {
        if (alertDialog.open || keysDialog.open || event.defaultPrevented) return;
        const inField = event.target instanceof HTMLInputElement;
        if (event.key === "Escape") {
          if (inField && event.target !== commandInput) event.target.blur();
          else if (!inField) send("back");
        } else if (!inField && event.key === ":") {
          openCommandLine();
          event.preventDefault();
        } else if (!inField && event.key === "?") {
          keysDialog.showModal();
          event.preventDefault();
        } else if (!inField && commandFor(event)) {
          send("run " + commandFor(event).id);
          event.preventDefault();
        }
      });

      const connect = () => {
        const scheme = location.protocol === "https:" ? "wss://" : "ws://";
        const link = decodeURIComponent(location.pathname.slice(1));
        const query = "link=" + encodeURIComponent(link) + (tab ? "&tab=" + encodeURIComponent(tab) : "");
        socket = new WebSocket(scheme + location.host + "/socket?" + query);
        socket.addEventListener("open", () => {
          status.textContent = "Connected" + hostStatus;
          retry = 250;
        });
        socket.addEventListener("message", (message) => {
          try {
            show(JSON.parse(message.data));
            if (retry >= 0) status.textContent = "Connected" + hostStatus;
          } catch (error) {
            // The page is out of step: the whole page again, on a new connection.
            errors.replaceChildren(text("p", "The page could not apply an update (" + error.message + "); reconnecting."));
            socket.close();
          }
        });
        socket.addEventListener("close", () => {
          if (retry < 0) return;
          status.textContent = "Disconnected; reconnecting…";
          setTimeout(connect, retry);
          retry = Math.min(retry * 2, 5000);
        });
      };
      connect();
    })();

    """#

  /// `values` as a JSON array of strings, for the script.
  private static func json(_ values: [String]) -> String {
    "[" + values.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
  }
}
