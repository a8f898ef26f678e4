// Origin's admin UI: the theme chosen with the header's button (kept in localStorage), set on
// <html> before the page is painted, so a dark page never flashes light. Loaded without `defer`
// for that reason, and kept this small; ui.js does the rest. No choice: the system's
// (prefers-color-scheme), which the stylesheet follows without any script.
(function () {
  "use strict";
  try {
    var theme = window.localStorage.getItem("origin-theme");
    if (theme === "dark" || theme === "light") document.documentElement.setAttribute("data-theme", theme);
  } catch (error) { /* storage refused (a private window's policy): the system's theme */ }
})();
