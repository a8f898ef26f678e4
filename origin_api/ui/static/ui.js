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

  // The hits fragment at `url` in place of `hits`' content, its times shown locally, and the
  // address made `address`; a sign-in that has ended reloads the page. Resolves true once the
  // hits are in (search as you type and "Show more" both load hits this way).
  function loadHits(hits, url, address, signal) {
    return fetch(url, {
      credentials: "same-origin",
      headers: { "X-Requested-With": "origin-ui" },
      signal: signal
    }).then(function (response) {
      if (response.redirected || response.status === 401) { window.location.reload(); return null; }
      return response.text();
    }).then(function (html) {
      if (html === null) return false;
      hits.innerHTML = html; // the server's HTML: every text in it is escaped there
      localTimes(hits);
      history.replaceState(null, "", address);
      return true;
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
      loadHits(hits, form.dataset.hits + "?" + shown, form.action + "?" + shown, pending.signal)
      .catch(function (error) {
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

  // -- look: the theme button, the header's menu, j/k/Enter between hits and events, ? for keys --

  // The theme button flips between light and dark and keeps the choice (theme.js applies it
  // before paint on the next page); without a choice the system's preference rules.
  function themeToggle() {
    var button = document.querySelector("[data-theme-toggle]");
    if (!button) return;
    var root = document.documentElement;
    var system = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
    function dark() {
      var chosen = root.getAttribute("data-theme");
      return chosen ? chosen === "dark" : !!(system && system.matches);
    }
    function show() {
      var on = dark();
      button.setAttribute("aria-pressed", on ? "true" : "false");
      button.title = on ? "Dark mode (on): switch to light" : "Dark mode (off): switch to dark";
    }
    button.hidden = false;
    show();
    if (system && system.addEventListener) system.addEventListener("change", show);
    button.addEventListener("click", function () {
      var next = dark() ? "light" : "dark";
      root.setAttribute("data-theme", next);
      try { window.localStorage.setItem("origin-theme", next); } catch (error) { /* kept for this page only */ }
      show();
    });
  }

  // The narrow header's menu (a <details>, which opens and closes without script) also closes
  // with Escape, a click elsewhere, or a link followed.
  function menuCloses() {
    var menu = document.querySelector("details.menu");
    if (!menu) return;
    document.addEventListener("click", function (event) {
      if (menu.open && !menu.contains(event.target)) menu.open = false;
    });
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && menu.open) {
        menu.open = false;
        menu.querySelector("summary").focus();
      }
    });
  }

  function typing(target) {
    return !!target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
  }

  // j and k move a selection among the page's [data-nav-item]s (search hits, a session's
  // events), looked up at each key so hits added later (as you type, "show more") count; Enter
  // opens the selected item's [data-nav-open] link (or its first link). The selection is focus
  // too, so a screen reader reads the item and Tab continues from it.
  function keyboardNavigation() {
    var help = document.getElementById("keys");
    if (help) {
      help.querySelectorAll("[data-close]").forEach(function (button) {
        button.addEventListener("click", function () { help.close(); });
      });
    }
    function items() {
      return Array.prototype.filter.call(document.querySelectorAll("[data-nav-item]"), function (el) {
        return el.getClientRects().length > 0;
      });
    }
    // The first key starts at the item the page was opened at (the address's #target, or one
    // marked data-nav-start) when it is in view, else at the first item in view.
    function firstInView(list) {
      var start = document.querySelector("[data-nav-item]:target, [data-nav-item][data-nav-start]");
      var at = start ? list.indexOf(start) : -1;
      if (at >= 0 && start.getBoundingClientRect().bottom > 0 &&
          start.getBoundingClientRect().top < window.innerHeight) return at;
      for (var i = 0; i < list.length; i++) {
        if (list[i].getBoundingClientRect().bottom > 0) return i;
      }
      return list.length - 1;
    }
    function select(list, index) {
      list.forEach(function (el) {
        el.classList.remove("nav-selected");
        el.removeAttribute("aria-current");
      });
      var chosen = list[index];
      chosen.classList.add("nav-selected");
      chosen.setAttribute("aria-current", "true");
      if (!chosen.hasAttribute("tabindex")) chosen.setAttribute("tabindex", "-1");
      chosen.focus({ preventScroll: true });
      chosen.scrollIntoView({ block: "nearest" });
    }
    function move(step) {
      var list = items();
      if (!list.length) return false;
      var at = list.findIndex(function (el) { return el.classList.contains("nav-selected"); });
      var next = at < 0 ? firstInView(list) : Math.min(list.length - 1, Math.max(0, at + step));
      select(list, next);
      return true;
    }
    function open(event) {
      var chosen = document.activeElement;
      if (!chosen || !chosen.matches("[data-nav-item].nav-selected")) return false;
      var link = chosen.querySelector("[data-nav-open]") || chosen.querySelector("a[href]");
      if (!link) return false;
      if (event.shiftKey || event.ctrlKey || event.metaKey) return false;
      link.click();
      return true;
    }
    document.addEventListener("keydown", function (event) {
      if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
      if (typing(event.target) || (help && help.open)) return;
      var done = false;
      if (event.key === "j") done = move(1);
      else if (event.key === "k") done = move(-1);
      else if (event.key === "Enter") done = open(event);
      else if (event.key === "?" && help && help.showModal) { help.showModal(); done = true; }
      if (done) event.preventDefault();
    });
  }

  /* browse: "Show more" in place. The link loads the whole page with a larger limit without
     the script; with it, the hits fragment replaces the list, the page stays where it was, and
     the first new hit takes the focus (so a keyboard or a screen reader goes on from there). */
  function showMore() {
    var hits = document.getElementById("hits");
    if (!hits) return;
    hits.addEventListener("click", function (event) {
      var link = event.target && event.target.closest ? event.target.closest("a[data-more]") : null;
      if (!link || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
      event.preventDefault();
      var kind = hits.querySelector("li.hit.event") ? "li.hit.event" : "li.hit.entry";
      var before = hits.querySelectorAll(kind).length;
      link.setAttribute("aria-busy", "true");
      loadHits(hits, link.dataset.more, link.getAttribute("href")).then(function (loaded) {
        if (!loaded) return;
        var next = hits.querySelectorAll(kind)[before];
        if (next) {
          next.setAttribute("tabindex", "-1");
          next.focus({ preventScroll: true });
        }
      }).catch(function (error) {
        link.removeAttribute("aria-busy");
        link.textContent = "Show more failed: " + error.message;
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
    themeToggle();
    menuCloses();
    keyboardNavigation();
    showMore();
    scrollToHit();
  });
})();
