/// The page a browser tab loads, compiled into the binary: its HTML, its one
/// script and its style sheet. The script builds the screen from the view
/// tree the session sends, every plugin's text set as text
/// (`textContent`, `value`), never as markup; the page allows no inline
/// script and nothing from another origin (``WebApp``'s
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
    <header><h1 id="app-title">Vivarium</h1><p id="status" role="status" aria-live="polite">Connecting…</p></header>
    <main id="screen" aria-live="polite"></main>
    <div id="notices" role="status" aria-live="polite"></div>
    <div id="errors" role="alert"></div>
    <dialog id="alert" aria-labelledby="alert-title"><h2 id="alert-title"></h2><p id="alert-message"></p><div class="actions"></div></dialog>
    <noscript>This app needs JavaScript.</noscript>
    </body>
    </html>

    """

  /// The style sheet: focus always visible, stacks as flex boxes, tones as colours and words.
  static let css = """
    body { font-family: system-ui, sans-serif; margin: 0; color: #1b1b1b; background: #fafafa; }
    header { display: flex; gap: 1rem; align-items: baseline; padding: .5rem 1rem; background: #233; color: #fff; }
    header h1 { font-size: 1.1rem; margin: 0; }
    header p { margin: 0; opacity: .85; }
    main { padding: 1rem; max-width: 60rem; }
    .stack { display: flex; gap: .5rem; }
    .vertical { flex-direction: column; align-items: flex-start; }
    .horizontal { flex-direction: row; flex-wrap: wrap; align-items: center; }
    section.module { border-left: 3px solid #9ab; padding-left: .75rem; margin: .25rem 0; width: 100%; }
    [role=listbox] { list-style: none; padding: 0; margin: 0; min-width: 20rem; border: 1px solid #bbb; }
    [role=option] { display: flex; justify-content: space-between; gap: 1rem; padding: .25rem .5rem; cursor: pointer; }
    [role=option][aria-selected=true] { background: #dde8f0; }
    .muted { color: #555; }
    .info { color: #035; }
    .positive { color: #063; }
    .warning { color: #740; }
    .negative { color: #900; }
    .notice { padding: .25rem .5rem; border-left: 4px solid currentColor; }
    :focus-visible { outline: 3px solid #0a5ad4; outline-offset: 2px; }
    button { font: inherit; padding: .25rem .75rem; }
    label { display: flex; gap: .5rem; align-items: center; }
    #errors p { color: #900; }
    #errors, #notices { padding: 0 1rem; }

    """

  /// The script: connects the tab's session, draws what it sends, sends what the person does.
  static let script = #"""
    "use strict";
    (() => {
      const screen = document.getElementById("screen");
      const status = document.getElementById("status");
      const notices = document.getElementById("notices");
      const errors = document.getElementById("errors");
      const dialog = document.getElementById("alert");
      let socket = null;
      let retry = 250;

      const element = (tag, attributes, text) => {
        const node = document.createElement(tag);
        for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
        if (text !== undefined) node.textContent = text;
        return node;
      };
      const send = (line) => { if (socket && socket.readyState === 1) socket.send(line); };
      // Addresses and text go as one session line each: `tap ADDRESS`, `type ADDRESS TEXT`.
      const oneLine = (text) => text.replace(/[\r\n]/g, " ");

      const drawNode = (node, screenOf) => {
        switch (node.kind) {
          case "heading": return element("h2", {}, node.text);
          case "text": return element("p", { class: node.tone || "normal" }, node.text);
          case "notice": {
            const role = node.tone === "negative" || node.tone === "warning" ? "alert" : "status";
            return element("p", { class: "notice " + node.tone, role: role }, node.text);
          }
          case "button": {
            const button = element("button", { type: "button", "data-address": node.id }, node.title);
            button.addEventListener("click", () => send("tap " + node.id));
            return button;
          }
          case "field":
          case "secretField": {
            const label = element("label", {});
            label.append(element("span", {}, node.label));
            const input = element("input", {
              type: node.kind === "secretField" ? "password" : "text",
              "data-address": node.id, placeholder: node.placeholder || "", autocomplete: "off",
            });
            if (node.kind === "field") input.value = node.value;
            input.addEventListener("input", () => send("type " + node.id + " " + oneLine(input.value)));
            input.addEventListener("keydown", (event) => {
              if (event.key !== "Enter") return;
              const next = [...screen.querySelectorAll("input,button")];
              const at = next.indexOf(input);
              if (at >= 0 && next[at + 1]) next[at + 1].focus();
            });
            label.append(input);
            return label;
          }
          case "list": {
            const list = element("ul", { role: "listbox", "aria-label": node.id, tabindex: "0", "data-address": node.id });
            for (const row of node.rows) {
              const option = element("li", { role: "option", id: "row-" + node.id + "-" + row.id, "aria-selected": "false" });
              option.append(element("span", {}, row.title));
              if (row.detail) option.append(element("span", { class: "muted" }, row.detail));
              option.addEventListener("click", () => send("select " + node.id + " " + row.id));
              list.append(option);
            }
            let active = -1;
            list.addEventListener("keydown", (event) => {
              const options = [...list.children];
              if (event.key === "ArrowDown" || event.key === "ArrowUp") {
                active = Math.max(0, Math.min(options.length - 1, active + (event.key === "ArrowDown" ? 1 : -1)));
                options.forEach((option, index) => option.setAttribute("aria-selected", String(index === active)));
                if (options[active]) list.setAttribute("aria-activedescendant", options[active].id);
                event.preventDefault();
              } else if (event.key === "Enter" && options[active]) {
                send("select " + node.id + " " + node.rows[active].id);
              }
            });
            return list;
          }
          case "stack": {
            const stack = element("div", { class: "stack " + node.axis });
            for (const child of node.children) stack.append(drawNode(child, screenOf));
            return stack;
          }
          case "slot": {
            const region = element("div", { role: "region", "aria-label": node.name, class: "slot" });
            for (const child of screenOf(node.name)) region.append(drawScreen(child));
            return region;
          }
          default: return element("p", { class: "muted" }, "(" + node.kind + ")");
        }
      };

      const drawScreen = (composed) => {
        const section = element("section", { class: "module", "aria-label": composed.urn });
        const slots = new Map(composed.slots.map((slot) => [slot.name, slot.children]));
        const screenOf = (name) => slots.get(name) || [];
        if (composed.tree) section.append(drawNode(composed.tree, screenOf));
        else section.append(element("p", { class: "muted" }, composed.isLoading ? "Loading…" : "(nothing drawn)"));
        return section;
      };

      const focusedAddress = () => document.activeElement && document.activeElement.getAttribute("data-address");

      const show = (update) => {
        if (update.title) document.getElementById("app-title").textContent = update.title;
        if (update.screen !== undefined) {
          const focused = focusedAddress();
          screen.replaceChildren(update.screen ? drawScreen(update.screen) : element("p", {}, "Nothing is open."));
          const again = focused && screen.querySelector('[data-address="' + CSS.escape(focused) + '"]');
          if (again) again.focus();
        }
        if (update.link !== undefined && update.link !== null) {
          // The deep link as the address bar's path: its '?' and '#' escaped.
          const path = "/" + encodeURI(update.link).replace(/\?/g, "%3F").replace(/#/g, "%23");
          if (location.pathname !== path) history.replaceState(null, "", path);
        }
        notices.replaceChildren(...(update.notices || []).map((notice) => element("p", { class: "notice " + notice.tone }, notice.text)));
        errors.replaceChildren(...(update.errors || []).map((error) => element("p", {}, error)));
        if (update.alert) {
          document.getElementById("alert-title").textContent = update.alert.title;
          document.getElementById("alert-message").textContent = update.alert.message;
          const actions = dialog.querySelector(".actions");
          actions.replaceChildren();
          const ok = element("button", { type: "button" }, update.alert.choice ? update.alert.choice.confirm : "OK");
          ok.addEventListener("click", () => send("ok"));
          actions.append(ok);
          if (update.alert.choice) {
            const cancel = element("button", { type: "button" }, update.alert.choice.cancel);
            cancel.addEventListener("click", () => send("cancel"));
            actions.append(cancel);
          }
          if (!dialog.open) dialog.showModal();
        } else if (dialog.open) {
          dialog.close();
        }
      };

      dialog.addEventListener("cancel", (event) => { event.preventDefault(); send("cancel"); });
      document.addEventListener("keydown", (event) => {
        if (event.key === "Escape" && !dialog.open && !(event.target instanceof HTMLInputElement)) send("back");
      });

      const connect = () => {
        const scheme = location.protocol === "https:" ? "wss://" : "ws://";
        const link = decodeURIComponent(location.pathname.slice(1));
        socket = new WebSocket(scheme + location.host + "/socket?link=" + encodeURIComponent(link));
        socket.addEventListener("open", () => { status.textContent = "Connected"; retry = 250; });
        socket.addEventListener("message", (message) => {
          try {
            show(JSON.parse(message.data));
          } catch (error) {
            errors.replaceChildren(element("p", {}, "The page could not show an update: " + error));
          }
        });
        socket.addEventListener("close", () => {
          status.textContent = "Disconnected; reconnecting…";
          setTimeout(connect, retry);
          retry = Math.min(retry * 2, 5000);
        });
      };
      connect();
    })();

    """#
}
