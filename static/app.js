// Small behaviours every page shares; each page works without them.
(function () {
  'use strict';

  // A table wider than the screen scrolls sideways inside its frame; the frame then takes keyboard focus so the arrow
  // keys can scroll it (WCAG 2.1.1), and is named for screen readers. Tables that fit stay out of the tab order.
  function markScrollingTables(root) {
    var frames = (root || document).querySelectorAll('.table-wrap');
    for (var i = 0; i < frames.length; i++) {
      var frame = frames[i];
      if (frame.scrollWidth > frame.clientWidth + 1) {
        frame.setAttribute('tabindex', '0');
        frame.setAttribute('role', 'region');
        // Named after the table's caption when it has one, so two scrolling tables on a page are told apart.
        var caption = frame.querySelector('caption');
        var named = caption && caption.textContent.trim() ? caption.textContent.trim() + ', table' : 'Table';
        if (!frame.hasAttribute('aria-label')) frame.setAttribute('aria-label', named + ', scrolls sideways');
      } else if (frame.getAttribute('tabindex') === '0') {
        frame.removeAttribute('tabindex');
        frame.removeAttribute('role');
      }
    }
  }

  document.addEventListener('DOMContentLoaded', function () { markScrollingTables(document); });
  window.addEventListener('resize', function () { markScrollingTables(document); });
  document.addEventListener('htmx:afterSettle', function (event) { markScrollingTables(event.target); });
})();
