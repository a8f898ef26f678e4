// Origin's admin UI: a little plain script. Every page works without it; it adds search as you
// type, times in the browser's time zone, "/" to search, confirmations before destructive forms,
// and a Copy button for a secret shown once.
(function () {
  "use strict";

  function localTimes(root) {
    root.querySelectorAll("time[datetime]").forEach(function (el) {
      var when = new Date(el.getAttribute("datetime"));
      if (when.getTime() === 0) { el.textContent = "—"; return; } // no time, never 1 January 1970
      if (!isNaN(when.getTime())) {
        el.textContent = when.toLocaleString(undefined, {
          year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit"
        });
      }
    });
  }

  function searchAsYouType() {
    var form = document.getElementById("search");
    var hits = document.getElementById("hits");
    if (!form || !hits) return;
    var timer = null, pending = null, last = null;
    function run() {
      var query = new URLSearchParams(new FormData(form));
      var shown = query.toString();
      if (shown === last) return;
      last = shown;
      if (pending) pending.abort();
      pending = new AbortController();
      fetch(form.dataset.hits + "?" + shown, {
        credentials: "same-origin",
        headers: { "X-Requested-With": "origin-ui" },
        signal: pending.signal
      }).then(function (response) {
        if (response.redirected || response.status === 401) { window.location.reload(); return null; }
        return response.text();
      }).then(function (html) {
        if (html === null) return;
        hits.innerHTML = html; // the server's HTML: every text in it is escaped there
        localTimes(hits);
        history.replaceState(null, "", form.action + "?" + shown);
      }).catch(function (error) {
        if (error.name !== "AbortError") hits.textContent = "The search failed: " + error.message;
      });
    }
    function soon() { clearTimeout(timer); timer = setTimeout(run, 200); }
    form.addEventListener("input", soon);
    form.addEventListener("change", soon);
    form.addEventListener("submit", function (event) { event.preventDefault(); clearTimeout(timer); run(); });
  }

  function slashFocusesSearch() {
    document.addEventListener("keydown", function (event) {
      if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
      var target = event.target;
      if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
      var box = document.getElementById("q");
      if (box) { event.preventDefault(); box.focus(); box.select(); }
      else { window.location.href = "/ui/search"; }
    });
  }

  function confirmations() {
    document.addEventListener("submit", function (event) {
      var form = event.target;
      var message = form && form.getAttribute && form.getAttribute("data-confirm");
      if (message && !window.confirm(message)) event.preventDefault();
    }, true);
  }

  // A secret shown once (a new token's) has a Copy button. The clipboard API exists only in a
  // secure context (https, or loopback); elsewhere the field's text is selected instead, for Ctrl+C.
  function copyButtons() {
    document.querySelectorAll("button[data-copy]").forEach(function (btn) {
      var field = document.getElementById(btn.dataset.copy);
      if (!field) return;
      var label = btn.textContent;
      var timer = null;
      function said(text) {
        btn.textContent = text;
        clearTimeout(timer);
        timer = setTimeout(function () { btn.textContent = label; }, 2000);
      }
      function select() {
        field.focus();
        field.select();
        said("Selected: press Ctrl+C");
      }
      btn.addEventListener("click", function () {
        if (!navigator.clipboard || !window.isSecureContext) { select(); return; }
        navigator.clipboard.writeText(field.value).then(function () { said("Copied"); }, select);
      });
    });
  }

  // session: a search hit opens its session at the hit (`at=`). The address's #anchor scrolls it
  // to the top, under nothing; this centres it, with the events before and after it in view, and
  // moves the keyboard's focus there.
  function scrollToHit() {
    var hit = document.querySelector(".ev.ev-at");
    if (!hit) return;
    hit.scrollIntoView({ block: "center" });
    hit.focus({ preventScroll: true });
  }

  document.addEventListener("DOMContentLoaded", function () {
    localTimes(document);
    searchAsYouType();
    slashFocusesSearch();
    confirmations();
    copyButtons();
    scrollToHit();
  });
})();
