// Table chat: the lines the server relayed, and a box to write one (≤ 200 characters).

import {h, mount, toast} from "./dom.js";
import {errorText} from "./errors.js";
import {t} from "./i18n.js";

export class ChatPanel {
  constructor(ctx, tableId) {
    this.ctx = ctx;
    this.tableId = tableId;
    this.list = h("ol", {class: "chat-lines", "aria-live": "polite", "aria-label": t("chat.messages")});
    this.input = h("input", {id: `chat-input`, name: "chat", maxlength: "200", autocomplete: "off",
                             placeholder: t("chat.placeholder")});
    const form = h("form", {class: "chat-form", onSubmit: (e) => {
      e.preventDefault();
      this.send();
    }},
      h("label", {class: "sr-only", for: "chat-input"}, t("chat.message")), this.input,
      h("button", {class: "btn btn-small", type: "submit"}, t("chat.send")));
    this.el = h("section", {class: "chat", "aria-label": t("chat.title")}, this.list, form);
    this.onChange = (event) => {
      if (event.detail.what === "chat" && event.detail.table_id === this.tableId) this.update();
    };
    ctx.store.addEventListener("change", this.onChange);
    this.update();
  }

  async send() {
    const text = this.input.value.trim();
    if (!text) return;
    try {
      await this.ctx.socket.request({type: "chat", table_id: this.tableId, text});
      // the next line may already be typed while this one was on its way: keep it
      if (this.input.value.trim() === text) this.input.value = "";
    } catch (err) {
      toast(err.code === "rate_limited" ? t("chat.slowDown") : errorText(err), "error");
    }
  }

  update() {
    const lines = this.ctx.store.chats.get(this.tableId) || [];
    const me = this.ctx.store.me && this.ctx.store.me.player_id;
    const nearBottom = this.list.scrollHeight - this.list.scrollTop - this.list.clientHeight < 40;
    mount(this.list, lines.length ? lines.map((line) => h("li", {class: line.player_id === me ? "mine" : ""},
      h("b", {class: "chat-name", title: line.name}, line.name), " ", h("span", null, line.text)))
      : h("li", {class: "muted"}, t("chat.none")));
    if (nearBottom) this.list.scrollTop = this.list.scrollHeight;
  }

  destroy() {
    this.ctx.store.removeEventListener("change", this.onChange);
  }
}
