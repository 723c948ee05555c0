// The management page works without this script; it adds three conveniences.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  // 1. After an action, move the focus to its outcome so keyboard and screen reader users hear it.
  const target = document.querySelector("[data-focus]");
  if (target) {
    target.focus();
  }

  // 2. The copy button of the one-time reveal.
  for (const button of document.querySelectorAll("button[data-copy]")) {
    const field = document.getElementById(button.dataset.copy);
    const status = document.getElementById("copy-status");
    button.hidden = false;
    button.addEventListener("click", async () => {
      field.select();
      let copied = false;
      try {
        await navigator.clipboard.writeText(field.value);
        copied = true;
      } catch (error) {
        copied = document.execCommand && document.execCommand("copy");
      }
      if (status) {
        status.textContent = copied ? "Copied to the clipboard." : "Press Ctrl+C to copy the selected value.";
      }
    });
  }

  // 3. The inspector's latest requests refresh every few seconds while the page is visible.
  const log = document.querySelector("[data-refresh]");
  if (log) {
    const refresh = async () => {
      if (document.hidden) {
        return;
      }
      try {
        const response = await fetch(log.dataset.refresh, { credentials: "same-origin" });
        if (response.ok) {
          log.innerHTML = await response.text();
        }
      } catch (error) {
        // The fake stopped: keep the last table shown.
      }
    };
    window.setInterval(refresh, 3000);
  }
});
