// What `/` runs without the session's token: a tab that opened the studio keeps the token it was
// given (sessionStorage, this tab only) and comes back with it, so that reloading the page works.
// A token the studio did not take (it was started again) is forgotten, so that this never loops.
"use strict";
(() => {
  const kept = sessionStorage.getItem("simreel-token");
  if (new URLSearchParams(location.search).has("token")) {
    sessionStorage.removeItem("simreel-token");
  } else if (kept) {
    location.replace("/?token=" + encodeURIComponent(kept) + location.hash);
  }
})();
