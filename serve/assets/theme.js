// Applies the saved theme before the page paints: "light", "dark", or
// (when nothing is saved) the system's.
(function () {
  try {
    var t = localStorage.getItem("evalrun-theme");
    if (t === "light" || t === "dark") document.documentElement.dataset.theme = t;
  } catch (e) {}
})();
