// Copy buttons, added to a page that works without them: every element
// marked data-copy gets a button that copies its text (a link: its absolute
// URL) to the clipboard. data-copy names what is copied, for the button's
// label. Without the Clipboard API (an insecure origin) no button is added.
(function () {
  "use strict";
  if (!navigator.clipboard) {
    return;
  }
  var reset = 2000; // milliseconds until the button says "Copy" again
  document.querySelectorAll("[data-copy]").forEach(function (el) {
    var button = document.createElement("button");
    button.type = "button";
    button.className = "copy";
    button.textContent = "Copy";
    button.setAttribute("aria-label", "Copy " + el.getAttribute("data-copy"));
    button.addEventListener("click", function () {
      var text = el.tagName === "A" ? el.href : el.textContent;
      navigator.clipboard.writeText(text).then(function () {
        show(button, "Copied", "copied");
      }, function () {
        show(button, "Select and copy", "failed");
      });
    });
    if (el.tagName === "PRE") {
      var box = document.createElement("div");
      box.className = "copy-box";
      el.parentNode.insertBefore(box, el);
      box.appendChild(el);
      box.appendChild(button);
    } else {
      el.insertAdjacentElement("afterend", button);
    }
  });

  function show(button, text, state) {
    button.textContent = text;
    button.setAttribute("data-state", state);
    setTimeout(function () {
      button.textContent = "Copy";
      button.removeAttribute("data-state");
    }, reset);
  }
})();
