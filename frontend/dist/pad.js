(()=>{if(typeof document<"u"){let t=document.getElementById("app");t&&(t.textContent="Lets Pad is starting…")}})();
//# sourceMappingURL=pad.js.map
