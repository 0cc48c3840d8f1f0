// What `/` runs without the session's token: a tab that opened the studio keeps the token it was
// given (sessionStorage, this tab only) and comes back with it, so that reloading the page works.
// A token the studio did not take (it was started again) is forgotten, so that this never loops.
// A window another page opened carries a copy of its opener's sessionStorage (the browser copies
// it): there the kept token is never used, and forgotten, so that a site the studio's tab went
// on to cannot open the studio with it.
"use strict";
(() => {
  const kept = sessionStorage.getItem("simreel-token");
  const opened = window.opener !== null || (document.referrer !== "" && new URL(document.referrer).origin !== location.origin);
  if (new URLSearchParams(location.search).has("token") || opened) {
    sessionStorage.removeItem("simreel-token");
  } else if (kept) {
    location.replace("/?token=" + encodeURIComponent(kept) + location.hash);
  }
})();
