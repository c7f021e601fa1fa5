import { describe, expect, it } from "vitest";
import { AllowedTenants, TenantPolicy, TopicLayout } from "../../src/index.js";

describe("TenantPolicy", () => {
  const strict = new TenantPolicy("tg");

  it("allows the system's own tenant", () => {
    expect(strict.problem("non-persistent://tg/request/joke")).toBeNull();
    const staging = new TopicLayout({ tenant: "staging" });
    expect(new TenantPolicy(staging.tenant).problem(staging.request("joke"))).toBeNull();
    expect(new TenantPolicy(staging.tenant).own).toBe("staging");
  });

  it("refuses another tenant's queue, naming the queue, its tenant and the knob", () => {
    const problem = strict.problem("non-persistent://tgb/request/joke");
    expect(problem).toContain("queue non-persistent://tgb/request/joke is in tenant 'tgb'");
    expect(problem).toContain("'tg'");
    expect(problem).toContain("TOOLMESH_ALLOWED_TENANTS");
  });

  it("refuses a bare name (it means persistent://public/default/...) and a malformed one", () => {
    expect(strict.problem("joke")).toMatch(/tenant 'public'/);
    expect(strict.problem("tg//joke")).toMatch(/invalid topic name/);
  });

  it("allows the tenants an operator lists", () => {
    const open = new TenantPolicy("tg", ["tgb"]);
    expect(open.problem("non-persistent://tgb/request/joke")).toBeNull();
    expect(open.problem("non-persistent://tgc/request/joke")).toMatch(/'tg', 'tgb'/);
    expect(open.firstProblem(["non-persistent://tg/request/a", "non-persistent://tgc/response/a"])).toMatch(/tgc/);
    expect(open.firstProblem(["non-persistent://tg/request/a", "non-persistent://tgb/response/a"])).toBeNull();
  });
});

describe("AllowedTenants", () => {
  it("reads a comma-separated list; empty means none", () => {
    expect(AllowedTenants.parse(undefined)).toEqual([]);
    expect(AllowedTenants.parse(" tgb , staging ,")).toEqual(["tgb", "staging"]);
  });

  it("refuses what is not a tenant name, a wildcard included", () => {
    expect(AllowedTenants.safeParse("a/b").success).toBe(false);
    expect(AllowedTenants.safeParse("*").success).toBe(false);
  });
});
